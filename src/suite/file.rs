//! The test file: one server and its cases, in TOML (docs/testing.md).
//! Each expectation keeps where it was written, so a failure points at its
//! line (`mcpscope test --format github` annotates that line).

use super::SuiteError;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use toml::Spanned;

/// A test file's largest size: it is written by people (or by `--from`).
pub const MAX_FILE_BYTES: u64 = 4 << 20;
/// At most this many cases in one file (each starts a server).
pub const MAX_CASES: usize = 1000;
/// A case's calls: `repeat` at most this.
pub const MAX_REPEAT: u32 = 10_000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestFile {
    pub server: Spanned<Server>,
    #[serde(default, rename = "case")]
    pub cases: Vec<Spanned<Case>>,
}

/// Which server the cases run against, as the command line names one
/// (`mcpscope check --help`, "Server").
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    /// A stdio server: its argv, run directly (never through a shell).
    pub command: Option<Vec<String>>,
    /// The built-in demo server.
    #[serde(default)]
    pub demo: bool,
    /// Streamable HTTP (or legacy HTTP+SSE).
    pub url: Option<String>,
    /// An `mcpServers` config file (relative to the test file) and the
    /// entry to run.
    pub config: Option<String>,
    pub name: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub cwd: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// auto | legacy | modern | a revision (default auto).
    pub protocol: Option<String>,
    /// One server for all the cases, in order (default: a fresh server
    /// process per case).
    #[serde(default)]
    pub shared: bool,
    /// Idle timeout of each call in seconds, reset by its progress (60).
    pub timeout: Option<f64>,
    /// Hard cap of each call in seconds (600).
    pub max_timeout: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    pub tool: String,
    #[serde(default)]
    pub arguments: Option<Value>,
    /// auto (default), auto-int, none, or a token value.
    pub token: Option<Value>,
    /// This case's protocol, over the server's.
    pub protocol: Option<String>,
    pub repeat: Option<u32>,
    /// logging/setLevel (or the per-request level at 2026-07-28).
    pub log_level: Option<String>,
    /// How long to keep listening after the last response (200).
    pub settle_ms: Option<u64>,
    pub timeout: Option<f64>,
    /// The golden recording this case's session is compared with, as
    /// `diff` compares (relative to the test file; default
    /// `STEM.golden/NAME.jsonl`, used when it exists).
    pub golden: Option<String>,
    #[serde(default)]
    pub expect: Expect,
}

/// What the case's calls must show. Every field is optional; a case with
/// none passes when its calls complete and the checks find no error.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The result's `isError`.
    pub is_error: Option<Spanned<bool>>,
    /// A JSON subset of each result: every key given must be there with a
    /// matching value; arrays match element by element, in order, as a
    /// prefix.
    pub result: Option<Spanned<Value>>,
    /// A JSON subset of each result's `structuredContent`.
    pub structured: Option<Spanned<Value>>,
    pub progress: Option<Spanned<Progress>>,
    /// Every progress notification of a call arrives before its response.
    pub progress_before_response: Option<Spanned<bool>>,
    /// Arrivals that must come in this order (others may come between):
    /// `progress`, `response`, `log`, `log:LEVEL`, or a method.
    pub order: Option<Spanned<Vec<String>>>,
    /// Patterns (regular expressions), each matching some progress message
    /// or log text of the case.
    pub messages: Option<Spanned<Vec<String>>>,
    pub logs: Option<Spanned<Logs>>,
    /// Methods of notifications (or server requests) that must arrive.
    pub notifications: Option<Spanned<Vec<String>>>,
    pub findings: Option<Spanned<Findings>>,
    pub timing: Option<Spanned<Timing>>,
    /// The golden recording must exist, and differ from the session only
    /// within these tolerances (`diff`'s: 2x and 250 ms by default).
    pub golden: Option<Spanned<Golden>>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    /// Exactly this many per call.
    pub count: Option<u64>,
    pub min: Option<u64>,
    pub max: Option<u64>,
    /// Each value larger than the one before.
    pub increasing: Option<bool>,
    /// The last value equals the total.
    pub reaches_total: Option<bool>,
    /// The largest gap between two progress notifications.
    pub max_gap_ms: Option<f64>,
    /// The first progress notification within this long of the request.
    pub first_within_ms: Option<f64>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Logs {
    /// Levels at least one log of the case has.
    #[serde(default)]
    pub present: Vec<String>,
    /// Levels no log of the case has.
    #[serde(default)]
    pub absent: Vec<String>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Findings {
    /// Warnings fail the case too (`check --strict`).
    #[serde(default)]
    pub strict: bool,
    /// Rules whose findings are shown but never fail the case.
    #[serde(default)]
    pub allow: Vec<String>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Golden {
    /// A call's duration differs when one is at least this many times the other…
    pub time_ratio: Option<f64>,
    /// …and they are at least this many milliseconds apart.
    pub min_ms: Option<u64>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// The median call duration over the case's calls, at most.
    pub p50_ms: Option<f64>,
    /// The 95th percentile, at most.
    pub p95_ms: Option<f64>,
    /// The longest call, at most.
    pub max_ms: Option<f64>,
}

/// A test file that cannot be used, with where.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct FileError {
    pub path: String,
    pub line: usize,
    pub message: String,
}

/// The 1-based line of byte `at` in `text`.
pub fn line_of(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count() + 1
}

/// Parse a test file (`path` names it in errors), checking what serde
/// cannot: one kind of server, names, bounds, and `${VAR}` expanded.
pub fn parse(
    path: &str,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<TestFile, FileError> {
    let err = |at: usize, message: String| FileError {
        path: path.to_string(),
        line: line_of(text, at),
        message,
    };
    let mut file: TestFile = toml::from_str(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        // The parser's message repeats the file's text; its first line says what.
        let msg = e
            .message()
            .lines()
            .next()
            .unwrap_or("invalid TOML")
            .to_string();
        err(at, msg)
    })?;
    let at = file.server.span().start;
    let server = file.server.get_mut();
    let kinds = [
        server.command.is_some(),
        server.demo,
        server.url.is_some(),
        server.config.is_some(),
    ];
    match kinds.iter().filter(|k| **k).count() {
        1 => {}
        0 => {
            return Err(err(
                at,
                "[server] needs one of command, demo, url or config".into(),
            ));
        }
        _ => {
            return Err(err(
                at,
                "[server] takes only one of command, demo, url and config".into(),
            ));
        }
    }
    if server.command.as_ref().is_some_and(Vec::is_empty) {
        return Err(err(at, "[server] command is empty".into()));
    }
    if server.config.is_some() && server.name.is_none() {
        return Err(err(
            at,
            "[server] config needs name (the entry to run)".into(),
        ));
    }
    expand_server(server, env).map_err(|m| err(at, m.to_string()))?;
    if file.cases.is_empty() {
        return Err(err(
            text.len(),
            "no [[case]]: a test file has at least one".into(),
        ));
    }
    if file.cases.len() > MAX_CASES {
        return Err(err(text.len(), format!("more than {MAX_CASES} cases")));
    }
    let mut names = std::collections::HashSet::new();
    for c in &file.cases {
        let at = c.span().start;
        let case = c.get_ref();
        if case.name.trim().is_empty() {
            return Err(err(at, "a case's name is empty".into()));
        }
        if !names.insert(case.name.as_str()) {
            return Err(err(at, format!("two cases are named {:?}", case.name)));
        }
        if case.repeat.is_some_and(|r| r == 0 || r > MAX_REPEAT) {
            return Err(err(at, format!("repeat must be 1 to {MAX_REPEAT}")));
        }
        if case.golden.is_some() && file.server.get_ref().shared {
            return Err(err(
                at,
                "a golden recording is one case's session: not with shared = true".into(),
            ));
        }
        if let Some(g) = &case.expect.golden
            && g.get_ref()
                .time_ratio
                .is_some_and(|r| !(r.is_finite() && r >= 1.0))
        {
            return Err(err(
                g.span().start,
                "golden.time_ratio must be a number of at least 1".into(),
            ));
        }
        if case.protocol.is_some() && file.server.get_ref().shared {
            return Err(err(
                at,
                "a case's protocol needs its own server: not with shared = true".into(),
            ));
        }
        if [
            case.timeout,
            file.server.get_ref().timeout,
            file.server.get_ref().max_timeout,
        ]
        .into_iter()
        .flatten()
        .any(|t| !(t.is_finite() && t > 0.0))
        {
            return Err(err(at, "a timeout is a positive number of seconds".into()));
        }
        if let Some(l) = &case.log_level
            && let Err(m) = l.parse::<crate::protocol::views::LogLevel>()
        {
            return Err(err(at, format!("log_level: {m}")));
        }
        if let Some(a) = &case.arguments
            && !a.is_object()
        {
            return Err(err(at, "arguments must be a table".into()));
        }
        check_expect(&case.expect).map_err(|(at, m)| err(at, m))?;
    }
    Ok(file)
}

/// What serde cannot see in the expectations: levels, rules, patterns.
fn check_expect(e: &Expect) -> Result<(), (usize, String)> {
    if let Some(l) = &e.logs {
        for level in l.get_ref().present.iter().chain(&l.get_ref().absent) {
            level
                .parse::<crate::protocol::views::LogLevel>()
                .map_err(|m| (l.span().start, format!("logs: {m}")))?;
        }
    }
    if let Some(f) = &e.findings {
        for rule in &f.get_ref().allow {
            rule.parse::<crate::checks::Rule>()
                .map_err(|m| (f.span().start, format!("findings.allow: {m}")))?;
        }
    }
    if let Some(m) = &e.messages {
        for p in m.get_ref() {
            regex::Regex::new(p).map_err(|x| {
                let first = x.to_string();
                let first = first
                    .lines()
                    .last()
                    .unwrap_or("invalid pattern")
                    .trim()
                    .to_string();
                (m.span().start, format!("messages: {p:?}: {first}"))
            })?;
        }
    }
    if let Some(o) = &e.order {
        for item in o.get_ref() {
            if let Some(level) = item.strip_prefix("log:") {
                level
                    .parse::<crate::protocol::views::LogLevel>()
                    .map_err(|m| (o.span().start, format!("order: {m}")))?;
            } else if !matches!(item.as_str(), "progress" | "response" | "log")
                && !item.contains('/')
            {
                return Err((
                    o.span().start,
                    format!(
                        "order: {item:?} is none of progress, response, log, log:LEVEL or a method"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `${NAME}` (and `${NAME:-default}`) in the server's strings, from `env`;
/// `$$` is a `$`. A variable that is not set (and has no default) is an
/// error: a test must not run against a server it did not mean.
pub fn expand(s: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, SuiteError> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(r) = after.strip_prefix('$') {
            out.push('$');
            rest = r;
        } else if let Some(r) = after.strip_prefix('{') {
            let Some(end) = r.find('}') else {
                return Err(SuiteError::Unclosed {
                    text: s.to_string(),
                });
            };
            let inner = &r[..end];
            let (name, default) = match inner.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (inner, None),
            };
            match (env(name), default) {
                (Some(v), _) => out.push_str(&v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => {
                    return Err(SuiteError::NotSet {
                        name: name.to_string(),
                    });
                }
            }
            rest = &r[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn expand_server(s: &mut Server, env: &dyn Fn(&str) -> Option<String>) -> Result<(), SuiteError> {
    let one = |v: &mut String| -> Result<(), SuiteError> {
        *v = expand(v, env)?;
        Ok(())
    };
    for v in s.command.iter_mut().flatten() {
        one(v)?;
    }
    for v in [&mut s.url, &mut s.config, &mut s.name, &mut s.cwd]
        .into_iter()
        .flatten()
    {
        one(v)?;
    }
    for v in s.env.values_mut().chain(s.headers.values_mut()) {
        one(v)?;
    }
    Ok(())
}

/// A case's golden recording: its `golden` key, else `STEM.golden/NAME.jsonl`
/// beside the test file (the name with anything but letters, digits, `-`
/// and `_` as `_`).
pub fn golden_path(test_file: &std::path::Path, case: &Case) -> std::path::PathBuf {
    let dir = test_file.parent().unwrap_or(std::path::Path::new("."));
    match &case.golden {
        Some(p) => dir.join(p),
        None => {
            let stem = test_file
                .file_stem()
                .map_or_else(|| "test".into(), |s| s.to_string_lossy());
            let name: String = case
                .name
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            dir.join(format!("{stem}.golden"))
                .join(format!("{name}.jsonl"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn a_file_parses_with_each_expectations_line() {
        let text = "[server]\ndemo = true\n\n[[case]]\nname = \"a\"\ntool = \"slow_task\"\n[case.expect]\nis_error = false\nprogress = { min = 2 }\n";
        let f = parse("t.toml", text, &no_env).unwrap();
        let e = &f.cases[0].get_ref().expect;
        assert_eq!(line_of(text, e.is_error.as_ref().unwrap().span().start), 8);
        assert_eq!(line_of(text, e.progress.as_ref().unwrap().span().start), 9);
        assert_eq!(e.progress.as_ref().unwrap().get_ref().min, Some(2));
    }

    #[test]
    fn mistakes_are_errors_at_their_line() {
        let bad = [
            (
                "[server]\n[[case]]\nname=\"a\"\ntool=\"t\"\n",
                1,
                "needs one of",
            ),
            (
                "[server]\ndemo=true\nurl=\"http://x\"\n[[case]]\nname=\"a\"\ntool=\"t\"\n",
                1,
                "only one",
            ),
            ("[server]\ndemo=true\n", 3, "no [[case]]"),
            (
                "[server]\ndemo=true\n[[case]]\nname=\"a\"\ntool=\"t\"\nrepeat=0\n",
                3,
                "repeat",
            ),
            (
                "[server]\ndemo=true\n[[case]]\nname=\"a\"\ntool=\"t\"\n[case.expect]\nlogs={present=[\"loud\"]}\n",
                7,
                "unknown log level",
            ),
            (
                "[server]\ndemo=true\n[[case]]\nname=\"a\"\ntool=\"t\"\n[case.expect]\nmessages=[\"(\"]\n",
                7,
                "messages",
            ),
            (
                "[server]\ndemo=true\n[[case]]\nname=\"a\"\ntool=\"t\"\n[case.expect]\norder=[\"sometime\"]\n",
                7,
                "order",
            ),
            (
                "[server]\ndemo=true\n[[case]]\nname=\"a\"\ntool=\"t\"\nsurprise=1\n",
                6,
                "unknown field",
            ),
            (
                "[server]\ncommand=[\"${NOPE}\"]\n[[case]]\nname=\"a\"\ntool=\"t\"\n",
                1,
                "${NOPE} is not set",
            ),
        ];
        for (text, line, says) in bad {
            let e = parse("t.toml", text, &no_env).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.message.contains(says), "{text:?}: {e}");
        }
    }

    #[test]
    fn variables_expand_with_defaults_and_dollars() {
        let env = |n: &str| (n == "HOME").then(|| "/h".to_string());
        assert_eq!(
            expand("${HOME}/x $$ ${NO:-d} $x", &env).unwrap(),
            "/h/x $ d $x"
        );
        assert!(expand("${HOME", &env).is_err());
    }
}
