//! `mcpscope completions SHELL` and `mcpscope man`: what they print is
//! generated from the same clap definitions the binary parses with.

use crate::support::*;

/// Subcommands a user would complete or look up; `conformance-client` is
/// hidden and must stay out of both.
const SUBCOMMANDS: [&str; 6] = ["call", "tools", "check", "replay", "completions", "man"];

#[test]
fn completions_for_every_shell_name_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let o = run(&["completions", shell]);
        assert_eq!(o.code, 0, "{shell}: {}", o.stderr);
        assert!(o.stderr.is_empty(), "{shell}: {}", o.stderr);
        assert!(!o.stdout.trim().is_empty(), "{shell}: empty script");
        for sub in SUBCOMMANDS {
            assert!(
                o.stdout.contains(sub),
                "{shell}: no {sub:?} in\n{}",
                o.stdout
            );
        }
        assert!(
            !o.stdout.contains("conformance-client"),
            "{shell}: a hidden command is offered"
        );
    }
}

#[test]
fn completions_refuse_an_unknown_shell() {
    let o = run(&["completions", "tcsh"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stdout.is_empty());
}

#[test]
fn man_page_is_roff_naming_the_subcommands() {
    let o = run(&["man"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.starts_with('.'), "not roff:\n{}", o.stdout);
    let th = o
        .stdout
        .lines()
        .find(|l| l.starts_with(".TH "))
        .expect("a .TH title line");
    assert!(th.starts_with(".TH mcpscope 1"), "{th}");
    for sub in SUBCOMMANDS {
        assert!(o.stdout.contains(sub), "no {sub:?} in\n{}", o.stdout);
    }
    assert!(!o.stdout.contains("conformance-client"));
}

#[test]
fn man_pages_of_subcommands() {
    let o = run(&["man", "call"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains(".TH mcpscope-call 1"),
        "the page the main one refers to:\n{}",
        o.stdout
    );
    assert!(o.stdout.contains(env!("CARGO_PKG_VERSION")));
    assert!(o.stdout.contains("\\-\\-tool"), "{}", o.stdout);
    for hidden_or_unknown in ["conformance-client", "nope"] {
        let o = run(&["man", hidden_or_unknown]);
        assert_eq!(o.code, 2, "{hidden_or_unknown}");
        assert!(o.stdout.is_empty());
        assert!(o.stderr.contains("no subcommand"), "{}", o.stderr);
    }
}

/// The keys of a JSON object's top level, in the order written: a string
/// at depth 1 right after `{` or `,` is a key. (Parsing would sort them.)
fn top_level_keys(line: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let (mut depth, mut expect_key) = (0, false);
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let mut text = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        c => text.push(c),
                    }
                }
                if depth == 1 && expect_key {
                    keys.push(text);
                }
                expect_key = false;
            }
            '{' | '[' => {
                depth += 1;
                expect_key = depth == 1;
            }
            '}' | ']' => depth -= 1,
            ',' => expect_key = depth == 1,
            _ => {}
        }
    }
    keys
}

#[test]
fn readme_trace_header_lists_the_keys_in_the_recorded_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let o = run(&[
        "call",
        "--demo",
        "--tool",
        "echo",
        "--args",
        r#"{"text": "x"}"#,
        "--record",
        path.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let recorded = std::fs::read_to_string(&path).unwrap();
    let header = recorded.lines().next().unwrap();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/traces.md")).unwrap();
    let example = readme
        .lines()
        .find(|l| l.starts_with(r#"{"mcpscope_trace""#))
        .expect("a trace header example in docs/traces.md");
    assert!(top_level_keys(header).len() >= 4, "{header}");
    assert_eq!(
        top_level_keys(example),
        top_level_keys(header),
        "{example}\n{header}"
    );
}
