//! "Run mcpscope headless, check its exit code, read what it recorded": what
//! most end-to-end tests do, in one builder. An unexpected exit code fails
//! with the command line and both output streams, so no test has to spell
//! out that message.

use super::{BIN, Output, finish, trace_lines};
use serde_json::Value;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `mcpscope ARGS...`, to be run once; see [`headless`].
pub struct Headless {
    args: Vec<String>,
    server: Option<Vec<String>>,
    env: Vec<(String, OsString)>,
    record: bool,
}

/// Start building `mcpscope ARGS...` (the subcommand first).
pub fn headless<S: AsRef<str>>(args: impl IntoIterator<Item = S>) -> Headless {
    Headless {
        args: args.into_iter().map(|a| a.as_ref().to_string()).collect(),
        server: None,
        env: Vec::new(),
        record: false,
    }
}

impl Headless {
    /// More arguments, after those given so far.
    pub fn args<S: AsRef<str>>(mut self, more: impl IntoIterator<Item = S>) -> Headless {
        self.args
            .extend(more.into_iter().map(|a| a.as_ref().to_string()));
        self
    }

    /// The stdio server to run: its argv goes last, after `--`.
    pub fn server<S: AsRef<str>>(mut self, argv: impl IntoIterator<Item = S>) -> Headless {
        self.server = Some(argv.into_iter().map(|a| a.as_ref().to_string()).collect());
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Headless {
        self.env.push((key.into(), value.as_ref().to_owned()));
        self
    }

    /// Record the session (`--record`) to a file of a temporary directory
    /// the [`Run`] keeps; read it back with [`Run::trace`].
    pub fn record(mut self) -> Headless {
        self.record = true;
        self
    }

    /// Run to the end, whatever the exit code.
    pub fn run(self) -> Run {
        let dir = tempfile::tempdir().expect("temp dir");
        let trace = self.record.then(|| dir.path().join("trace.jsonl"));
        let mut args = self.args;
        if let Some(t) = &trace {
            args.push("--record".into());
            args.push(t.display().to_string());
        }
        if let Some(argv) = self.server {
            args.push("--".into());
            args.extend(argv);
        }
        let mut cmd = Command::new(BIN);
        cmd.args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let out = finish(cmd.spawn().expect("spawn mcpscope"));
        Run {
            args,
            out,
            trace,
            _dir: dir,
        }
    }

    /// Run to the end and assert the exit code.
    pub fn expect(self, code: i32) -> Run {
        let run = self.run();
        assert_eq!(
            run.out.code, code,
            "mcpscope {:?}\n--- stdout\n{}\n--- stderr\n{}",
            run.args, run.out.stdout, run.out.stderr
        );
        run
    }
}

/// A finished run: its output (through `Deref`) and its recording.
pub struct Run {
    args: Vec<String>,
    out: Output,
    trace: Option<PathBuf>,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for Run {
    type Target = Output;
    fn deref(&self) -> &Output {
        &self.out
    }
}

impl Run {
    /// Where the session was recorded (the run was built with `record`).
    pub fn trace_path(&self) -> &Path {
        self.trace
            .as_deref()
            .expect("the run was not recorded: build it with .record()")
    }

    /// The recording's lines as JSON (header first).
    pub fn trace(&self) -> Vec<Value> {
        trace_lines(self.trace_path())
    }

    /// Stdout as one JSON document.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.out.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.out.stdout))
    }
}
