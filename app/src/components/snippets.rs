//! The texts the share buttons copy: the responsive embed snippet (an
//! iframe 100 % wide whose height follows the embedded page through
//! `postMessage`) and the Markdown snippet (the chart's SVG linking to the
//! planner) for platforms that block iframes. Pure, tested natively.

/// The message the embed view posts to its parent whenever its content's
/// height changes: `{ memwall: "height", height: <CSS pixels> }`.
pub const HEIGHT_MESSAGE: &str = "height";

/// The largest height the listener accepts, in CSS pixels: a message
/// cannot make the host page arbitrarily long.
pub const MAX_EMBED_HEIGHT: u32 = 4000;

/// The embed snippet: an iframe 100 % wide that starts at `start_height`
/// pixels, and the listener that sets its height from the embedded page's
/// messages (only for messages whose source is this iframe's window, as a
/// whole number of pixels up to [`MAX_EMBED_HEIGHT`]). The listener is the
/// same for every memwall embed on a page; adding it twice is harmless.
pub fn embed_snippet(base: &str, hash: &str, start_height: u32) -> String {
    let src = attr_url(&format!("{base}{hash}"));
    format!(
        "<iframe src=\"{src}\" data-memwall style=\"border:0;width:100%;height:{start_height}px\" loading=\"lazy\" title=\"memwall\"></iframe>\n\
         <script>addEventListener(\"message\",function(e){{var d=e.data;if(!d||d.memwall!==\"{HEIGHT_MESSAGE}\")return;\
         var h=Math.min(Math.round(Number(d.height)),{MAX_EMBED_HEIGHT});if(!(h>0))return;\
         document.querySelectorAll(\"iframe[data-memwall]\").forEach(function(f){{if(f.contentWindow===e.source)f.style.height=h+\"px\"}})}});</script>"
    )
}

/// A URL inside a double-quoted attribute.
fn attr_url(url: &str) -> String {
    url.replace('"', "%22")
        .replace('<', "%3C")
        .replace('>', "%3E")
}

/// The Markdown snippet: the chart image (`image`, a file name or URL)
/// with the plans' names as its text, linking to the planner at `link`.
pub fn markdown_snippet(names: &[String], image: &str, link: &str) -> String {
    let alt: String = format!("memwall: {}", names.join(" · "))
        .chars()
        .filter(|c| !c.is_control())
        .flat_map(|c| {
            let escape = matches!(c, '[' | ']' | '\\' | '*' | '_' | '`' | '<' | '>');
            escape.then_some('\\').into_iter().chain(std::iter::once(c))
        })
        .collect();
    format!("[![{alt}]({})]({})", md_url(image), md_url(link))
}

/// A URL as a Markdown link destination: the characters that would end it
/// or break it percent-encoded.
fn md_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            ' ' => out.push_str("%20"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embed_is_full_width_and_listens_for_its_height() {
        let s = embed_snippet("http://x/?a=\"b", "#embed=1&w=2.AA", 600);
        assert!(s.starts_with("<iframe src=\"http://x/?a=%22b#embed=1&w=2.AA\""));
        assert!(s.contains("width:100%;height:600px"));
        assert!(s.contains("f.contentWindow===e.source"));
        assert!(s.contains(&format!(
            "Math.min(Math.round(Number(d.height)),{MAX_EMBED_HEIGHT})"
        )));
        assert_eq!(s.matches("<script>").count(), 1);
    }

    #[test]
    fn markdown_links_the_image_to_the_planner() {
        let names = vec!["8×H100 [base]".to_string(), "QLoRA_r=64".to_string()];
        let md = markdown_snippet(&names, "memwall-frontier.svg", "http://h/p (1)/#w=2.AB-_");
        assert_eq!(
            md,
            "[![memwall: 8×H100 \\[base\\] · QLoRA\\_r=64](memwall-frontier.svg)](http://h/p%20%281%29/#w=2.AB-_)"
        );
    }
}
