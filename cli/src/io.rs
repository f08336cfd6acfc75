//! The CLI's standard streams, made safe for hostile input and short pipes.
//!
//! - Output goes through [`emit`]: a closed pipe (`memwall schema | head`)
//!   ends the program quietly with status 0 instead of a panic, and control
//!   characters other than newlines and tabs are written escaped, so a plan
//!   name cannot carry terminal escape sequences into a table.
//! - Errors go through [`one_line`]: every control character, newlines
//!   included, is escaped, so an error stays one line whatever it quotes.
//! - Input is read through [`read_bounded`]: at most [`MAX_INPUT`] bytes
//!   from a file or stdin, refused by name beyond that.

use std::io::{Read, Write};

/// The largest input accepted: 64 MiB (a plan is kilobytes; a harness
/// report a few megabytes).
pub const MAX_INPUT: u64 = 64 * 1024 * 1024;

/// Writes `text` to stdout, escaping control characters other than `\n`
/// and `\t`; exits with status 0 if the reader has gone away.
pub fn emit(text: &str) {
    let clean = escape(text, |c| c != '\n' && c != '\t');
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(clean.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
    }
}

/// `text` on one line: every control character escaped (`\n`, `\u{1b}`).
pub fn one_line(text: &str) -> String {
    escape(text, |_| true)
}

/// Escapes the control characters `pick` selects as `\n`, `\r`, `\t` or
/// `\u{..}`.
fn escape(text: &str, pick: impl Fn(char) -> bool) -> String {
    if !text.chars().any(|c| c.is_control() && pick(c)) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && pick(c) {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                _ => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads at most [`MAX_INPUT`] bytes of text from `reader`, named `what`
/// in errors.
pub fn read_bounded(reader: impl Read, what: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {what}: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(format!(
            "{what} is larger than {} MiB, the most memwall reads",
            MAX_INPUT / (1024 * 1024)
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{what} is not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(one_line("a\nb\u{1b}[31m"), "a\\nb\\u{1b}[31m");
        assert_eq!(escape("ok\n\u{7}", |c| c != '\n'), "ok\n\\u{7}");
        assert_eq!(one_line("plain"), "plain");
    }

    #[test]
    fn input_is_bounded() {
        let big = std::io::repeat(b'x').take(MAX_INPUT + 10);
        let e = read_bounded(big, "stdin").expect_err("too large");
        assert!(e.contains("64 MiB"), "{e}");
        assert_eq!(read_bounded(&b"{}"[..], "x").as_deref(), Ok("{}"));
    }
}
