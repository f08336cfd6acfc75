//! The link codec: a versioned, compact string for a URL.
//!
//! Format: `<version>.<payload>`, where the payload is JSON compressed with
//! raw DEFLATE (RFC 1951) and written in unpadded base64url (RFC 4648 §5),
//! so it survives any URL unescaped. Version 1's JSON is the whole
//! workspace; version 2's holds only what differs from a frozen reference
//! ([`compact`]), about a third as long for the first screen. Decoding is defensive: the length is
//! bounded before and after decompression, and every failure is a
//! [`LinkError`] with a plain message in either language. What the JSON
//! holds is [`crate::workspace::Workspace`]'s business, which also checks
//! that a decoded workspace has at least one plan and at most
//! [`MAX_PLANS`], so a hostile link can neither exhaust memory nor leave
//! the app without a plan. Nothing decoded is ever markup.

use crate::lang::Lang;

pub mod compact;

/// Version of the link format and of the workspace; bump when a field
/// changes meaning, and keep decoding the old ones.
pub const LINK_VERSION: u32 = 2;

/// The format whose JSON is the whole workspace.
pub const FULL: u32 = 1;

/// The format whose JSON is a patch of [`compact::REFERENCE`].
pub const COMPACT: u32 = 2;

/// Longest link payload accepted, in characters.
pub const MAX_LINK_CHARS: usize = 32 * 1024;

/// Largest decompressed workspace accepted, in bytes.
pub const MAX_STATE_BYTES: usize = 512 * 1024;

/// Most plans a workspace holds.
pub const MAX_PLANS: usize = 12;

/// A whole workspace's JSON bytes as a version-1 link payload.
pub fn encode(json: &[u8]) -> String {
    encode_as(FULL, json)
}

/// JSON bytes as a link payload of the given format version.
pub fn encode_as(version: u32, json: &[u8]) -> String {
    let packed = miniz_oxide::deflate::compress_to_vec(json, 9);
    format!("{version}.{}", base64url_encode(&packed))
}

/// A link payload back to its JSON text, whatever its version.
pub fn decode(link: &str) -> Result<String, LinkError> {
    decode_versioned(link).map(|(_, json)| json)
}

/// A link payload back to its format version and JSON text: version,
/// base64url and DEFLATE checked, sizes bounded.
pub fn decode_versioned(link: &str) -> Result<(u32, String), LinkError> {
    let link = link.trim();
    if link.is_empty() {
        return Err(LinkError::Empty);
    }
    if link.len() > MAX_LINK_CHARS {
        return Err(LinkError::TooLong { chars: link.len() });
    }
    let (version, payload) = link.split_once('.').ok_or(LinkError::Damaged)?;
    // Strictly the decimal the encoder writes: no sign, no leading zero.
    let canonical = !version.is_empty()
        && version.len() <= 9
        && version.bytes().all(|b| b.is_ascii_digit())
        && !(version.len() > 1 && version.starts_with('0'));
    if !canonical {
        return Err(LinkError::Damaged);
    }
    let version: u32 = version.parse().map_err(|_| LinkError::Damaged)?;
    if version > LINK_VERSION {
        return Err(LinkError::NewerVersion { version });
    }
    if version == 0 {
        return Err(LinkError::Damaged);
    }
    let packed = base64url_decode(payload).ok_or(LinkError::Damaged)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_STATE_BYTES)
        .map_err(|e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => LinkError::TooLarge,
            _ => LinkError::Damaged,
        })?;
    let json = String::from_utf8(json).map_err(|_| LinkError::Damaged)?;
    Ok((version, json))
}

/// Why a link could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// Nothing after the `#`.
    Empty,
    /// Longer than [`MAX_LINK_CHARS`].
    TooLong {
        /// Its length.
        chars: usize,
    },
    /// Not a memwall link, or cut short, or altered.
    Damaged,
    /// Decompresses to more than [`MAX_STATE_BYTES`].
    TooLarge,
    /// Made by a newer memwall.
    NewerVersion {
        /// The link's version.
        version: u32,
    },
    /// Well-formed, but a value is wrong (the message names it and its
    /// position).
    Invalid {
        /// What is wrong.
        message: String,
    },
    /// No plan in it.
    NoPlan,
    /// More than [`MAX_PLANS`] plans.
    TooManyPlans {
        /// How many.
        plans: usize,
    },
}

impl LinkError {
    /// The problem in plain words, in a language.
    pub fn message(&self, lang: Lang) -> String {
        match (self, lang) {
            (LinkError::Empty, Lang::En) => "The link holds no plan.".into(),
            (LinkError::Empty, Lang::Zh) => "链接中没有方案。".into(),
            (LinkError::TooLong { chars }, Lang::En) => {
                format!("The link is too long ({chars} characters; at most {MAX_LINK_CHARS}).")
            }
            (LinkError::TooLong { chars }, Lang::Zh) => {
                format!("链接过长（{chars} 个字符，上限 {MAX_LINK_CHARS}）。")
            }
            (LinkError::Damaged, Lang::En) => {
                "The link is damaged or incomplete; it may have been cut when copied.".into()
            }
            (LinkError::Damaged, Lang::Zh) => "链接已损坏或不完整，可能在复制时被截断。".into(),
            (LinkError::TooLarge, Lang::En) => "The link expands to more data than a plan can hold.".into(),
            (LinkError::TooLarge, Lang::Zh) => "链接展开后的数据超出了方案的容量上限。".into(),
            (LinkError::NewerVersion { version }, Lang::En) => format!(
                "The link was made by a newer memwall (format {version}; this one reads up to {LINK_VERSION})."
            ),
            (LinkError::NewerVersion { version }, Lang::Zh) => format!(
                "该链接由更新版本的 memwall 生成（格式 {version}；当前版本最多支持 {LINK_VERSION}）。"
            ),
            (LinkError::Invalid { message }, Lang::En) => {
                format!("The link's plan is invalid: {message}")
            }
            (LinkError::Invalid { message }, Lang::Zh) => format!("链接中的方案无效：{message}"),
            (LinkError::NoPlan, Lang::En) => "The link holds no plan.".into(),
            (LinkError::NoPlan, Lang::Zh) => "链接中没有方案。".into(),
            (LinkError::TooManyPlans { plans }, Lang::En) => {
                format!("The link holds {plans} plans; at most {MAX_PLANS} are allowed.")
            }
            (LinkError::TooManyPlans { plans }, Lang::Zh) => {
                format!("链接包含 {plans} 个方案，最多允许 {MAX_PLANS} 个。")
            }
        }
    }
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for LinkError {}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Unpadded base64url (RFC 4648 §5).
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            let idx = (n >> (18 - 6 * i)) & 63;
            out.push(char::from(ALPHABET[idx as usize]));
        }
    }
    out
}

/// Decodes unpadded base64url; `None` on any character outside the
/// alphabet or an impossible length. Padding `=` is tolerated at the end.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let bytes = chunk.len() - 1;
        for i in 0..bytes {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_every_length() {
        for len in 0..70usize {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let text = base64url_encode(&bytes);
            assert!(text.bytes().all(|c| ALPHABET.contains(&c)));
            assert_eq!(base64url_decode(&text), Some(bytes));
        }
        assert_eq!(base64url_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64url_encode(b"fo"), "Zm8");
        assert_eq!(base64url_decode("Zm8="), Some(b"fo".to_vec()));
        assert_eq!(base64url_decode("Zm9v!"), None);
        assert_eq!(base64url_decode("Z"), None);
    }

    #[test]
    fn the_version_prefix_is_strict() {
        let good = encode(b"{}");
        assert!(decode(&good).is_ok());
        let payload = good.split_once('.').map(|(_, p)| p).unwrap_or_default();
        for prefix in ["01", "+1", "1 ", "", "1e0", "0x1"] {
            assert_eq!(
                decode(&format!("{prefix}.{payload}")),
                Err(LinkError::Damaged),
                "{prefix:?}"
            );
        }
    }
}
