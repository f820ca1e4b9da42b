//! The command line (DESIGN §3): clap definitions and the headless commands.

pub mod auth;
pub mod auth_args;
pub mod call;
pub mod check;
pub mod ci_text;
pub mod conformance;
pub mod connect;
pub mod demo_server;
pub mod diff;
pub mod docs;
pub mod export;
pub mod http_lines;
pub mod load;
pub mod mcp;
pub mod mock;
pub mod only;
pub mod otlp;
pub mod printer;
mod probe_noise;
pub mod proxy;
pub mod replay;
pub mod request;
pub mod rules;
pub mod sarif;
pub mod signals;
pub mod spec;
pub mod stdout;
pub mod test;
pub mod tools;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "mcpscope",
    version,
    about = "Inspector and debugger for MCP servers: progress, logs, notification order, raw JSON-RPC.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Option<Cmd>,
    /// Without a subcommand: the TUI on SERVER.
    #[command(flatten)]
    pub tui: TuiArgs,
    /// Write a log of mcpscope's own workings to PATH (for bug reports);
    /// MCPSCOPE_LOG_LEVEL sets the level (error, warn, info, debug, trace; default debug).
    #[arg(long, global = true, env = "MCPSCOPE_LOG", value_name = "PATH")]
    pub log_file: Option<std::path::PathBuf>,
}

/// Options of the interactive UI (`mcpscope [SERVER]`, `mcpscope demo`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TuiArgs {
    #[command(flatten)]
    pub server: spec::ServerArgs,
    /// Fire a call at start-up: 'TOOL JSON' (repeatable).
    #[arg(long = "run", value_name = "TOOL JSON")]
    pub run: Vec<String>,
    /// Fire the calls of FILE at start-up, after the `--run`s: one 'TOOL
    /// JSON' a line (blank lines and lines starting with `#` are skipped).
    #[arg(long, value_name = "FILE")]
    pub run_file: Option<std::path::PathBuf>,
    /// The log level the `--run` calls ask for (debug, info, notice,
    /// warning, error, critical, alert, emergency) instead of the session's.
    #[arg(long, value_name = "LEVEL")]
    pub run_level: Option<String>,
    /// The pane focused at start-up, by name or number (progress, timeline,
    /// logs, raw, tools, composer, findings, network, scope).
    #[arg(long, value_name = "PANE")]
    pub focus: Option<String>,
    /// Theme name (dark, light, high-contrast) or path to a theme TOML file.
    #[arg(long)]
    pub theme: Option<String>,
    /// Record the session as a JSONL trace.
    #[arg(long)]
    pub record: Option<std::path::PathBuf>,
    /// Frame rate cap (clamped to 5–60).
    #[arg(long)]
    pub fps: Option<u32>,
    #[command(flatten)]
    pub otlp: otlp::OtlpArgs,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// The TUI on the built-in demo server.
    Demo(TuiArgs),
    /// Call one tool headless: progress and logs on stderr, the result on stdout.
    Call(call::CallArgs),
    /// List a server's tools (all pages).
    Tools(tools::ToolsArgs),
    /// Send any request headless: the result on stdout, progress and logs on stderr;
    /// listings follow every page.
    Request(request::RequestArgs),
    /// Run the built-in demo MCP server (stdio, or Streamable HTTP with --http).
    DemoServer(demo_server::DemoServerArgs),
    /// Run calls (or read a recorded trace) and check them against the protocol rules.
    Check(check::CheckArgs),
    /// Run test files: calls and what must come back (results, progress,
    /// notification order, logs, findings, timing); `--from TRACE` writes
    /// one from a recording.
    Test(test::TestArgs),
    /// Serve mcpscope itself as an MCP server over stdio, for coding agents:
    /// tools `call`, `check`, `test` and `diff`, reaching only the servers
    /// named here.
    Mcp(mcp::McpArgs),
    /// Replay a recorded trace (`--print`: the timeline as text).
    Replay(replay::ReplayArgs),
    /// Compare two recorded sessions: listings, calls (outcome, result
    /// shape, progress, notification order, timing) and findings.
    Diff(diff::DiffArgs),
    /// Serve a recorded session as an MCP server (stdio, or Streamable HTTP
    /// with --http): requests matched against the trace, answered at its pace.
    Mock(mock::MockArgs),
    /// Export a recorded session: HAR (HTTP sessions), a Mermaid sequence
    /// diagram, or latency and findings statistics as JSON.
    Export(export::ExportArgs),
    /// Load a server: concurrent tools/calls, each with its own progress
    /// token; throughput, latency histogram, errors and stream integrity.
    Load(load::LoadArgs),
    /// List the rule catalog: id, severity, description, how to fix it and
    /// the specification section it rests on.
    Rules(rules::RulesArgs),
    /// Sit between a host and a stdio server: bytes pass unchanged, the
    /// session is observed, recorded and checked beside the path.
    #[command(after_help = proxy::SIGNALS_HELP)]
    Proxy(proxy::ProxyArgs),
    /// List the live proxy sessions on this machine.
    Sessions(proxy::SessionsArgs),
    /// Follow a live proxy session read-only: the TUI, or text with --print.
    Attach(proxy::AttachArgs),
    /// Print (or with --write, edit in place) a host config entry rewritten
    /// to run through `mcpscope proxy`.
    Wrap(proxy::WrapArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(docs::CompletionsArgs),
    /// Print the man page (roff) on stdout; `man COMMAND`: that subcommand's page.
    Man(docs::ManArgs),
    /// OAuth authorization of HTTP servers: login, status, logout (the token cache).
    Auth(auth::AuthCmdArgs),
    /// The client the official MCP conformance suite drives (`conformance client --command`).
    #[command(hide = true)]
    ConformanceClient(conformance::ConformanceArgs),
}

/// Run a headless command; returns the process exit code. The TUI commands
/// (`None`, `Demo`) are dispatched by the binary.
pub async fn run(cmd: Cmd) -> i32 {
    match cmd {
        Cmd::Demo(_) => 2,
        Cmd::Call(a) => call::run(a).await,
        Cmd::Tools(a) => tools::run(a).await,
        Cmd::Request(a) => request::run(a).await,
        Cmd::Check(a) => check::run(a).await,
        Cmd::Test(a) => test::run(a).await,
        Cmd::Mcp(a) => mcp::run(a).await,
        Cmd::Replay(a) => replay::run(a),
        Cmd::Diff(a) => diff::run(a).await,
        Cmd::Mock(a) => mock::run(a).await,
        Cmd::Export(a) => export::run(a).await,
        Cmd::Load(a) => load::run(a).await,
        Cmd::Rules(a) => rules::run(a),
        Cmd::Proxy(a) => proxy::run_proxy(a).await,
        Cmd::Sessions(a) => proxy::run_sessions(a),
        Cmd::Attach(a) => proxy::run_attach_print(a),
        Cmd::Wrap(a) => proxy::run_wrap(a),
        Cmd::Completions(a) => docs::run_completions(a),
        Cmd::Man(a) => docs::run_man(a),
        Cmd::Auth(a) => auth::run(a).await,
        Cmd::ConformanceClient(a) => conformance::run(a).await,
        Cmd::DemoServer(a) => demo_server::run(a).await,
    }
}

/// A file named on the command line and the option that names it.
pub type NamedFile<'a> = (&'static str, Option<&'a std::path::Path>);

impl Cli {
    /// The files the command line names: what the command reads, and what
    /// it writes (`--log-file` too), for [`refuse_same_files`].
    pub fn files(&self) -> (Vec<NamedFile<'_>>, Vec<NamedFile<'_>>) {
        use std::path::Path;
        fn config(s: &spec::ServerArgs) -> Option<&Path> {
            s.config.as_deref()
        }
        let (mut inputs, mut outputs): (Vec<NamedFile<'_>>, Vec<NamedFile<'_>>) = match &self.cmd {
            None => (
                vec![("--config", config(&self.tui.server))],
                vec![("--record", self.tui.record.as_deref())],
            ),
            Some(Cmd::Demo(a)) => (vec![], vec![("--record", a.record.as_deref())]),
            Some(Cmd::Call(a)) => (
                vec![("--config", config(&a.server))],
                vec![("--record", a.opts.record.as_deref())],
            ),
            Some(Cmd::Request(a)) => (
                vec![("--config", config(&a.server))],
                vec![("--record", a.opts.record.as_deref())],
            ),
            Some(Cmd::Check(a)) => (
                vec![
                    ("--trace", a.trace.as_deref()),
                    ("--baseline", a.baseline.as_deref()),
                    ("--config", config(&a.server)),
                ],
                vec![
                    ("--record", a.record.as_deref()),
                    ("--write-baseline", a.write_baseline.as_deref()),
                ],
            ),
            Some(Cmd::Diff(a)) => (
                vec![
                    ("A", Some(a.a.as_path())),
                    ("B", a.b.as_deref()),
                    ("--config", config(&a.server)),
                ],
                vec![("--record", a.record.as_deref())],
            ),
            Some(Cmd::Export(a)) => (
                vec![("the trace", Some(a.trace.as_path()))],
                vec![("-o", a.output.as_deref())],
            ),
            Some(Cmd::Mcp(a)) => (vec![("--config", a.config.as_deref())], vec![]),
            Some(Cmd::Test(a)) => (
                vec![("--from", a.from.as_deref())],
                vec![("-o", a.output.as_deref())],
            ),
            Some(Cmd::Tools(a)) => (vec![("--config", config(&a.server))], vec![]),
            Some(Cmd::Load(a)) => (vec![("--config", config(&a.server))], vec![]),
            Some(Cmd::Mock(a)) => (vec![("the trace", Some(a.trace.as_path()))], vec![]),
            Some(Cmd::Replay(a)) => (vec![("the trace", Some(a.file.as_path()))], vec![]),
            Some(Cmd::Wrap(a)) => (vec![("--config", Some(a.config.as_path()))], vec![]),
            Some(Cmd::Proxy(a)) => (vec![], vec![("--record", a.record.as_deref())]),
            Some(Cmd::ConformanceClient(a)) => (vec![], vec![("--record", a.record.as_deref())]),
            Some(_) => (vec![], vec![]),
        };
        // mcpscope's own log is appended to: onto a trace it would damage it.
        outputs.push(("--log-file", self.log_file.as_deref()));
        inputs.retain(|(_, p)| p.is_some());
        (inputs, outputs)
    }
}

/// Refuse (exit 2, one `[error]` line) a command line whose output names the
/// same file as one of its inputs or another of its outputs
/// ([`crate::files::distinct_outputs`]; [`Cli::files`] says which are
/// which); absent options are skipped. `main` calls it once, before
/// anything is opened or written.
pub fn refuse_same_files<'a>(
    inputs: &[(&'static str, Option<&'a std::path::Path>)],
    outputs: &[(&'static str, Option<&'a std::path::Path>)],
) -> Result<(), i32> {
    let given =
        |v: &[(&'static str, Option<&'a std::path::Path>)]| -> Vec<crate::files::Named<'a>> {
            v.iter()
                .filter_map(|(what, p)| p.map(|p| (*what, p)))
                .collect()
        };
    let (ins, outs) = (given(inputs), given(outputs));
    crate::files::distinct_outputs(&ins, &outs).map_err(|e| {
        eprintln!(
            "[error] {}",
            crate::protocol::sanitize::one_line(&e.to_string())
        );
        2
    })
}
