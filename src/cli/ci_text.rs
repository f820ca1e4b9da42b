//! Text for CI pages: GitHub workflow commands (`::error file=…,line=…::…`,
//! escaped as the runner parses them) and Markdown for a job summary (no
//! markup or HTML from a server renders), appended to
//! `$GITHUB_STEP_SUMMARY` when that is set. `check` and `test` both write them.

use crate::protocol::sanitize::one_line;

/// A workflow command's message (`%`, CR and LF escaped).
pub fn gh_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property (`:` and `,` escaped as well).
pub fn gh_prop(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One workflow command: `level` is `error`, `warning` or `notice`; the
/// location is a file and line when there is one.
pub fn gh_command(level: &str, at: Option<(&str, usize)>, title: &str, message: &str) -> String {
    let mut props = Vec::new();
    if let Some((file, line)) = at {
        props.push(format!("file={}", gh_prop(file)));
        props.push(format!("line={line}"));
    }
    props.push(format!("title={}", gh_prop(title)));
    format!("::{level} {}::{}\n", props.join(","), gh_data(message))
}

/// Text for a Markdown table cell or line: one line, no markup, no HTML.
pub fn md(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in one_line(s).chars() {
        match ch {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' => {
                o.push('\\');
                o.push(ch);
            }
            c => o.push(c),
        }
    }
    o
}

/// One finding group as a Markdown list item, with its fix.
pub fn md_group(g: &crate::checks::groups::Group) -> String {
    format!(
        "- **{}** ({}) ×{}{}: {} — *fix:* {}\n",
        g.rule,
        g.severity,
        g.count,
        if g.allowed { ", allowed" } else { "" },
        md(&g.message),
        md(&g.fix)
    )
}

/// Milliseconds as a person reads them.
pub fn ms(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.2} s", v / 1000.0)
    } else {
        format!("{v:.0} ms")
    }
}

/// Append a Markdown summary to `$GITHUB_STEP_SUMMARY` when it is set (a
/// file the runner shows on the job's page); a failure to is a warning.
pub fn step_summary(md: &str) {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return;
    };
    use std::io::Write;
    let r = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(md.as_bytes()));
    if let Err(e) = r {
        eprintln!(
            "[warning] cannot write $GITHUB_STEP_SUMMARY: {}",
            one_line(&e.to_string())
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_escape_what_the_runner_would_parse() {
        assert_eq!(
            gh_command("error", Some(("a,b:c.toml", 3)), "t: x", "50% done\nnext"),
            "::error file=a%2Cb%3Ac.toml,line=3,title=t%3A x::50%25 done%0Anext\n"
        );
        assert_eq!(
            gh_command("notice", None, "t", "m"),
            "::notice title=t::m\n"
        );
    }

    #[test]
    fn markdown_renders_no_markup() {
        assert_eq!(md("<b>a|b</b> *x*"), "&lt;b&gt;a\\|b&lt;/b&gt; \\*x\\*");
    }
}
