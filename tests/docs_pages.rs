//! The tables in `docs/` that the code defines cannot drift from it: the key
//! tables are generated from the key map (`MCPSCOPE_BLESS_DOCS=1` rewrites
//! them), the rule tables must list exactly the catalog, the exit codes are
//! provoked, and every `--flag` a page names exists for its command.
// Test code fails loudly on purpose, helpers included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use clap::CommandFactory;
use mcpscope::checks::Rule;
use mcpscope::tui::action::Action;
use mcpscope::tui::exit::Ended;
use mcpscope::tui::keymap::{Context, Keymap};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn page(name: &str) -> String {
    let path = root().join("docs").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every page of the manual, and the README.
fn pages() -> Vec<(PathBuf, String)> {
    let mut out = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out.into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

const KEYS_BEGIN: &str = "<!-- keys:begin -->";
const KEYS_END: &str = "<!-- keys:end -->";

/// The key tables as the help overlay groups them: one per context, the
/// playback keys apart (they are bound everywhere but work only in a replay).
fn key_tables() -> String {
    let row = |keys: &str, action: Action| {
        let keys: Vec<String> = keys.split(", ").map(|k| format!("`{k}`")).collect();
        format!("| {} | {} |\n", keys.join(", "), action.describe())
    };
    let head = |title: &str| format!("### {title}\n\n| keys | action |\n|---|---|\n");
    let mut out = String::new();
    let mut playback = String::new();
    for (ctx, rows) in Keymap::default().describe() {
        let mut group = String::new();
        for (keys, action) in rows {
            if ctx == Context::Global && action.is_replay() {
                playback.push_str(&row(&keys, action));
            } else {
                group.push_str(&row(&keys, action));
            }
        }
        if !group.is_empty() {
            out.push_str(&head(ctx.title()));
            out.push_str(&group);
            out.push('\n');
        }
    }
    out.push_str(&head("Replay (`mcpscope replay FILE`)"));
    out.push_str(&playback);
    out
}

#[test]
fn tui_key_tables_are_the_key_map() {
    let path = root().join("docs/tui.md");
    let text = page("tui.md");
    let start = text
        .find(KEYS_BEGIN)
        .expect("keys:begin marker in docs/tui.md")
        + KEYS_BEGIN.len();
    let end = text.find(KEYS_END).expect("keys:end marker in docs/tui.md");
    let want = format!("\n\n{}\n", key_tables());
    if std::env::var_os("MCPSCOPE_BLESS_DOCS").is_some() {
        let new = format!("{}{}{}", &text[..start], want, &text[end..]);
        std::fs::write(&path, new).unwrap();
        return;
    }
    assert_eq!(
        &text[start..end],
        want,
        "docs/tui.md's key tables differ from src/tui/keymap.rs; \
         MCPSCOPE_BLESS_DOCS=1 cargo test --test docs_pages regenerates them"
    );
}

/// `| `id` | severity |` rows of a page, in order.
fn rule_rows(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            if cells.len() < 4 || !cells[0].is_empty() {
                return None;
            }
            let id = cells[1].strip_prefix('`')?.strip_suffix('`')?;
            let sev = cells[2];
            matches!(sev, "error" | "warning" | "info").then(|| (id.to_string(), sev.to_string()))
        })
        .collect()
}

#[test]
fn checks_page_lists_exactly_the_rule_catalog() {
    let rows = rule_rows(&page("checks.md"));
    let mut seen = BTreeSet::new();
    for (id, _) in &rows {
        assert!(seen.insert(id.clone()), "docs/checks.md lists {id} twice");
    }
    let documented: BTreeMap<_, _> = rows.into_iter().collect();
    let catalog: BTreeMap<String, String> = Rule::ALL
        .iter()
        .map(|r| (r.id().to_string(), r.severity().to_string()))
        .collect();
    assert_eq!(
        documented, catalog,
        "docs/checks.md's rule tables against the catalog (`mcpscope rules`)"
    );
}

const FIXES_BEGIN: &str = "<!-- fixes:begin -->";
const FIXES_END: &str = "<!-- fixes:end -->";

/// How to fix each rule, from the catalog: one row per rule.
fn fix_table() -> String {
    let mut out = String::from("| rule | how to fix it | specification |\n|---|---|---|\n");
    for r in Rule::ALL {
        let fix = r.fix().replace('|', "\\|");
        let section = r
            .spec()
            .trim_start_matches("https://modelcontextprotocol.io/specification/");
        out.push_str(&format!(
            "| `{}` | {} | [{}]({}) |\n",
            r.id(),
            fix,
            section,
            r.spec()
        ));
    }
    out
}

/// docs/checks.md's fix table is the catalog's (`Rule::fix`, `Rule::spec`):
/// `MCPSCOPE_BLESS_DOCS=1` rewrites it.
#[test]
fn checks_page_fix_table_is_the_catalog() {
    let path = root().join("docs/checks.md");
    let text = page("checks.md");
    let start = text
        .find(FIXES_BEGIN)
        .expect("fixes:begin marker in docs/checks.md")
        + FIXES_BEGIN.len();
    let end = text
        .find(FIXES_END)
        .expect("fixes:end marker in docs/checks.md");
    let want = format!("\n\n{}\n", fix_table());
    if std::env::var_os("MCPSCOPE_BLESS_DOCS").is_some() {
        let new = format!("{}{}{}", &text[..start], want, &text[end..]);
        std::fs::write(&path, new).unwrap();
        return;
    }
    assert_eq!(
        &text[start..end],
        want,
        "docs/checks.md's fix table differs from the catalog (crates/core/src/checks/rules.rs); \
         MCPSCOPE_BLESS_DOCS=1 cargo test --test docs_pages regenerates it"
    );
}

/// The codes of `| exit code | meaning |` in docs/headless.md.
fn documented_exit_codes() -> BTreeSet<i32> {
    let text = page("headless.md");
    let table = text
        .split("| exit code | meaning |")
        .nth(1)
        .expect("an exit code table in docs/headless.md");
    table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let code = l.split('|').nth(1).unwrap().trim();
            code.parse()
                .unwrap_or_else(|_| panic!("exit code {code:?} in docs/headless.md"))
        })
        .collect()
}

fn exit_code(args: &[&str]) -> i32 {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpscope"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    out.status
        .code()
        .unwrap_or_else(|| panic!("{args:?} died of a signal"))
}

#[test]
fn headless_exit_code_table_is_what_call_exits_with() {
    let documented = documented_exit_codes();
    let mut provoked = BTreeSet::new();
    let cases: [(i32, &[&str]); 5] = [
        (
            0,
            &[
                "call", "--demo", "--quiet", "--tool", "echo", "-a", "text=x",
            ],
        ),
        (
            1,
            &[
                "call",
                "--demo",
                "--quiet",
                "--tool",
                "pipeline_wait",
                "-a",
                "polls=1",
                "-a",
                "interval_ms=1",
                "-a",
                "outcome=failed",
            ],
        ),
        (2, &["call", "--demo", "--no-such-flag"]),
        (
            3,
            &[
                "call", "--quiet", "--tool", "echo", "--", "sh", "-c", "exit 0",
            ],
        ),
        (
            4,
            &[
                "call",
                "--demo",
                "--quiet",
                "--tool",
                "sleep",
                "-a",
                "ms=20000",
                "--max-timeout",
                "0.5",
            ],
        ),
    ];
    for (want, args) in cases {
        assert_eq!(exit_code(args), want, "mcpscope {args:?}");
        provoked.insert(want);
    }
    // The signal codes are 128 + the signal, as the TUI and the headless
    // commands both exit.
    for sig in [libc_sig::SIGHUP, libc_sig::SIGINT, libc_sig::SIGTERM] {
        provoked.insert(Ended::Signal(sig).exit_code());
    }
    assert_eq!(documented, provoked, "docs/headless.md's exit code table");
}

mod libc_sig {
    pub const SIGHUP: i32 = 1;
    pub const SIGINT: i32 = 2;
    pub const SIGTERM: i32 = 15;
}

/// Long flags per command path (`call`, `auth login`, "" for the TUI), each
/// with the global ones.
fn flags() -> BTreeMap<String, BTreeSet<String>> {
    fn walk(cmd: &clap::Command, path: &str, out: &mut BTreeMap<String, BTreeSet<String>>) {
        let mut set: BTreeSet<String> = cmd
            .get_arguments()
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        set.extend(["--help".to_string(), "--log-file".to_string()]);
        if path.is_empty() {
            set.insert("--version".into());
        }
        out.insert(path.to_string(), set);
        for sub in cmd.get_subcommands() {
            let p = if path.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{path} {}", sub.get_name())
            };
            walk(sub, &p, out);
        }
    }
    let mut cmd = mcpscope::cli::Cli::command();
    cmd.build();
    let mut out = BTreeMap::new();
    walk(&cmd, "", &mut out);
    out
}

/// Flags of other tools the pages name (cargo, the conformance suite, `install`).
const OTHER_TOOLS: &[&str] = &[
    "--release",
    "--locked",
    "--path",
    "--git",
    "--profile",
    "--example",
    "--test",
    "--include-ignored",
    "--ignored",
    "--all-targets",
    "--check",
    "--command",
    "--scenario",
    "--spec-version",
    "--color",
    // cargo's cross-building, and the macOS command line tools' installer
    "--target",
    "--install",
    // the placeholder in the redaction rule: `--flag VALUE`/`--flag=VALUE`
    "--flag",
    // examples/key_latency.rs: the other build it measures side by side
    "--against",
    // the one-line installs: uvx, pipx run, npm
    "--from",
    "--spec",
    "--ignore-scripts",
];

fn long_flags(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < b.len() {
        let starts = b[i] == b'-'
            && b[i + 1] == b'-'
            && b[i + 2].is_ascii_lowercase()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-'));
        if starts {
            let mut j = i + 2;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-') {
                j += 1;
            }
            out.push(s[i..j].trim_end_matches('-').to_string());
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Code spans and the lines of fenced blocks.
fn code_pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            out.push(line.to_string());
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let Some(code) = parts.next() {
            out.push(code.to_string());
            parts.next();
        }
    }
    out
}

/// For each `mcpscope [SUB [SUB]] ...` (or `cargo run ... -- SUB ...`) in a
/// piece of code: the command path and the flags given to it.
fn invocations(
    piece: &str,
    commands: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<(String, Vec<String>)> {
    let tokens: Vec<&str> = piece.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        // A quoted command line (`--command "mcpscope conformance-client"`)
        // ends at its closing quote.
        let quoted = tokens[i].starts_with(['"', '\'']);
        let t = tokens[i].trim_start_matches(['(', '[', '"', '\'']);
        let is_cargo_run = t == "--"
            && tokens[..i].windows(2).any(|w| w == ["cargo", "run"])
            && !out
                .iter()
                .any(|(p, _): &(String, Vec<String>)| p == "cargo");
        let starts = t == "mcpscope" || t.ends_with("/mcpscope") || is_cargo_run;
        // A piece may also start with the command's name alone (`check --trace`).
        let by_name = i == 0 && !t.is_empty() && commands.contains_key(t);
        if !(starts || by_name) {
            i += 1;
            continue;
        }
        let mut path = String::new();
        if !starts {
            path = t.to_string();
        }
        i += 1;
        while i < tokens.len() {
            let word = tokens[i].trim_end_matches(['"', '\'']);
            let candidate = if path.is_empty() {
                word.to_string()
            } else {
                format!("{path} {word}")
            };
            if commands.contains_key(&candidate) {
                path = candidate;
                i += 1;
                if quoted && word.len() < tokens[i - 1].len() {
                    i = tokens.len();
                }
            } else {
                break;
            }
        }
        let mut given = Vec::new();
        while i < tokens.len() {
            let t = tokens[i];
            if quoted && t.ends_with(['"', '\'']) {
                given.extend(long_flags(t));
                i += 1;
                break;
            }
            if matches!(t, "--" | "&&" | ";" | ">" | ">>" | "#" | "<") || t == "mcpscope" {
                break;
            }
            given.extend(long_flags(t));
            i += 1;
        }
        out.push((path, given));
    }
    out
}

#[test]
fn every_flag_the_pages_name_exists_for_its_command() {
    let commands = flags();
    let any: BTreeSet<&str> = commands
        .values()
        .flatten()
        .map(String::as_str)
        .chain(OTHER_TOOLS.iter().copied())
        .collect();
    let mut wrong = Vec::new();
    for (path, text) in pages() {
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        for flag in long_flags(&text) {
            if !any.contains(flag.as_str()) {
                wrong.push(format!("{name}: {flag} is no flag of any command"));
            }
        }
        for piece in code_pieces(&text) {
            for (cmd, given) in invocations(&piece, &commands) {
                let known = &commands[&cmd];
                for flag in given {
                    if !known.contains(&flag) {
                        let shown = if cmd.is_empty() { "the TUI" } else { &cmd };
                        wrong.push(format!("{name}: `{piece}`: {flag} is no flag of {shown}"));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn readme_is_a_start_and_links_every_page() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 250, "README.md has {lines} lines (at most 250)");
    let index = page("README.md");
    for (path, _) in pages() {
        let Some(file) = path.strip_prefix(root().join("docs")).ok() else {
            continue;
        };
        let file = file.display().to_string();
        if file == "README.md" {
            continue;
        }
        assert!(
            index.contains(&format!("]({file})")),
            "docs/README.md does not link {file}"
        );
        assert!(
            readme.contains(&format!("](docs/{file}")),
            "README.md does not link docs/{file}"
        );
    }
    // The set-up commands on a fresh machine, near the top: right after
    // the install and the quick start a user reads first.
    let top: String = readme.lines().take(50).collect::<Vec<_>>().join("\n");
    for cmd in [
        "cargo run --release -- demo",
        "cargo test",
        "cargo test -- --include-ignored",
    ] {
        assert!(top.contains(cmd), "README.md's first 50 lines lack `{cmd}`");
    }
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn local_links_name_files_and_headings_that_exist() {
    let mut wrong = Vec::new();
    for (path, text) in pages() {
        let dir = path.parent().unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let link = &rest[..end];
            if link.contains("://") || link.contains(char::is_whitespace) {
                continue;
            }
            let (file, heading) = link.split_once('#').unwrap_or((link, ""));
            let target = if file.is_empty() {
                path.clone()
            } else {
                dir.join(file)
            };
            let Ok(target_text) = std::fs::read_to_string(&target) else {
                if !target.exists() {
                    wrong.push(format!("{}: {link}: no such file", path.display()));
                }
                continue;
            };
            if !heading.is_empty()
                && !target_text
                    .lines()
                    .filter(|l| l.starts_with('#'))
                    .any(|l| anchor(l.trim_start_matches('#')) == heading)
            {
                wrong.push(format!("{}: {link}: no such heading", path.display()));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
