//! `mcpscope proxy`, `sessions`, `attach --print` and `wrap`: arguments to
//! core values, and their text.

use crate::protocol::sanitize::one_line;
use crate::proxy::{Outcome, StdioProxy};
use crate::session::registry::{self, Entry};
use crate::trace::reader::TraceReader;
use crate::trace::{Dir, Store};
use crate::transport::stdio::CommandSpec;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// What the stdio proxy passes on to its server, as `proxy --help` says.
#[cfg(unix)]
pub const SIGNALS_HELP: &str = "Signals: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 \
    are forwarded to the server (which runs in a process group of its own); the server's exit \
    status, or the signal that killed it, becomes the proxy's.";
/// What the stdio proxy passes on to its server, as `proxy --help` says.
#[cfg(windows)]
pub const SIGNALS_HELP: &str = "Console events: Ctrl-C, Ctrl-Break and the console closing \
    reach the server as Ctrl-Break to its process group (which is its own: Windows cannot send \
    Ctrl-C to one group alone). Windows has no signals: SIGQUIT, SIGUSR1 and SIGUSR2 cannot be \
    forwarded, and the server's exit code becomes the proxy's.";

#[derive(Args, Debug, Clone)]
pub struct ProxyArgs {
    /// The session's name in `mcpscope sessions` and for `attach` (default:
    /// from the command).
    #[arg(long)]
    pub name: Option<String>,
    /// Also keep the session's trace in FILE (JSON Lines, as --record writes).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Do not run the protocol checks in the proxy (`attach` still checks).
    #[arg(long)]
    pub no_check: bool,
    /// Say on stderr what the proxy does, its findings included
    /// (`[mcpscope] ...` lines; off by default: the host logs stderr).
    #[arg(long, short)]
    pub verbose: bool,
    /// Memory bound of the event store (e.g. 64MiB; default 2GiB). The
    /// observer's queue holds a quarter of it, and a frame longer than a
    /// quarter of it (at most 256 MiB) is cut to that in the trace (never on
    /// the wire).
    #[arg(long, value_name = "SIZE", value_parser = crate::trace::size::parse_store_size)]
    pub max_store: Option<usize>,
    /// Accepted for symmetry with the other commands: the proxy never adds a
    /// `traceparent` (the host's bytes pass unchanged; the host's own one is
    /// what the server sees and what the checks judge).
    #[arg(long)]
    pub no_trace_context: bool,
    /// Start no OTLP receiver for the server's spans and logs (by default
    /// they are recorded into the session's trace: a spawned server is
    /// pointed at it, the HTTP proxy says its address; see
    /// docs/opentelemetry.md).
    #[arg(long)]
    pub no_otel_receiver: bool,
    /// Listen for the server's OTLP on this loopback HOST:PORT instead of a
    /// port of the OS's choosing (e.g. 127.0.0.1:4318), so a server already
    /// running can be pointed at it once.
    #[arg(
        long,
        value_name = "HOST:PORT",
        conflicts_with = "no_otel_receiver",
        value_parser = crate::otel::receiver::parse_receiver_addr
    )]
    pub otel_receiver: Option<std::net::SocketAddr>,
    #[command(flatten)]
    pub otlp: super::otlp::OtlpArgs,
    /// Change the traffic on purpose: a faults file (TOML rules, each a
    /// filter and an action) or a preset (progress-after-response,
    /// reorder-progress, lose-progress:N%, slow-server:DURATION,
    /// drop-sse-stream for HTTP, server-request-storm[:N] for stdio); repeatable.
    /// Every change is recorded as an `injected` event (docs/intercept.md).
    #[arg(long, value_name = "FILE|PRESET")]
    pub faults: Vec<String>,
    /// Breakpoints: hold the messages a filter selects until `attach NAME
    /// --intercept` forwards (as they were or edited) or drops them, and
    /// forge messages to either side (docs/intercept.md).
    #[arg(long)]
    pub intercept: bool,
    /// HTTP: listen on this loopback ADDR:PORT for the host (a reverse
    /// proxy to --url; Host and Origin are checked against DNS rebinding).
    #[arg(
        long,
        value_name = "ADDR:PORT",
        requires = "url",
        conflicts_with = "command"
    )]
    pub listen: Option<String>,
    /// HTTP: the Streamable HTTP (or legacy HTTP+SSE) server's URL.
    #[arg(long, requires = "listen")]
    pub url: Option<String>,
    /// The server command the host would run, after `--`.
    #[arg(last = true, value_name = "CMD", required_unless_present = "listen")]
    pub command: Vec<String>,
}

async fn run_http(
    a: ProxyArgs,
    listen: &str,
    otlp: Option<crate::otel::export::Config>,
    faults: Option<crate::proxy::faults::http::HttpFaults>,
) -> i32 {
    use std::net::ToSocketAddrs;
    let Some(addr) = listen.to_socket_addrs().ok().and_then(|mut a| a.next()) else {
        eprintln!(
            "[mcpscope] error: --listen {}: not an ADDR:PORT",
            one_line(listen)
        );
        return 2;
    };
    let raw = a.url.clone().unwrap_or_default();
    let url = match reqwest::Url::parse(&raw) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => u,
        _ => {
            eprintln!(
                "[mcpscope] error: --url {}: not an http(s) URL",
                one_line(&raw)
            );
            return 2;
        }
    };
    let name = a
        .name
        .clone()
        .unwrap_or_else(|| url.host_str().unwrap_or("http").to_string());
    // Bound first: a busy port fails before a recording is created.
    let listener = match crate::proxy::http::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("[mcpscope] error: {}", one_line(&e.to_string()));
            return 2;
        }
    };
    let (trace_path, owned) = match &a.record {
        Some(p) => (p.clone(), false),
        None => match registry::owned_trace_path(std::process::id()) {
            Ok(p) => (p, true),
            Err(e) => {
                eprintln!("[mcpscope] error: cannot use the sessions directory: {e}");
                return 3;
            }
        },
    };
    let spec = crate::session::ServerSpec::Http {
        name: name.clone(),
        url: raw,
        headers: Vec::new(),
        flavor: crate::transport::http::Flavor::Auto,
    };
    let trace = match crate::proxy::open_trace(&spec, &name, &trace_path, a.max_store) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("[mcpscope] error: {}", one_line(&e.to_string()));
            return 2;
        }
    };
    crate::proxy::http::HttpProxy {
        name,
        listen: addr,
        listener,
        url,
        trace,
        check: !a.no_check,
        checks: crate::checks::CheckConfig::default(),
        verbose: a.verbose,
        trace_path,
        owned_trace: owned,
        max_queued: crate::proxy::observer::max_queued(
            a.max_store
                .unwrap_or(crate::trace::StoreLimits::default().max_bytes),
        ),
        otlp,
        otel_receiver: crate::otel::ReceiverAt::of(a.no_otel_receiver, a.otel_receiver),
        faults,
        intercept: a.intercept,
        max_frame: crate::transport::lines::max_frame_within(
            a.max_store
                .unwrap_or(crate::trace::StoreLimits::default().max_bytes),
        ),
    }
    .run()
    .await
}

pub async fn run_proxy(a: ProxyArgs) -> i32 {
    let otlp = match a.otlp.config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("[mcpscope] error: {}", one_line(&e.0));
            return 2;
        }
    };
    let say = |e: crate::proxy::faults::FaultsError| {
        for line in e.0.lines() {
            eprintln!("[mcpscope] error: {}", one_line(line));
        }
        2
    };
    let faults = if a.faults.is_empty() {
        None
    } else {
        match crate::proxy::faults::load(&a.faults) {
            Ok(f) => Some(f),
            Err(e) => return say(e),
        }
    };
    let max_frame = crate::transport::lines::max_frame_within(
        a.max_store
            .unwrap_or(crate::trace::StoreLimits::default().max_bytes),
    );
    if let Some(listen) = a.listen.clone() {
        let faults = match faults.map(|f| crate::proxy::faults::http::HttpFaults::new(f, max_frame))
        {
            None => None,
            Some(Ok(f)) => Some(f),
            Some(Err(e)) => return say(e),
        };
        return run_http(a, &listen, otlp, faults).await;
    }
    let faults = match faults.map(crate::proxy::faults::for_stdio) {
        None => None,
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => return say(e),
    };
    let proxy = StdioProxy {
        name: a.name,
        cmd: CommandSpec {
            argv: a.command,
            env: Vec::new(),
            cwd: None,
        },
        record: a.record,
        check: !a.no_check,
        checks: crate::checks::CheckConfig::default(),
        verbose: a.verbose,
        max_store: a.max_store,
        max_frame,
        otel_receiver: crate::otel::ReceiverAt::of(a.no_otel_receiver, a.otel_receiver),
        otlp,
        faults,
        intercept: a.intercept,
    };
    match proxy.run().await {
        Outcome::Exited(exit) => crate::proxy::stdio::exit_like(exit),
        Outcome::Failed(why) => {
            eprintln!("[mcpscope] error: {}", one_line(&why));
            3
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct SessionsArgs {
    /// One JSON array of the sessions (name, pid, transport, server, trace,
    /// started, events, findings).
    #[arg(long)]
    pub json: bool,
}

pub fn run_sessions(a: SessionsArgs) -> i32 {
    let list = match registry::list() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("[error] cannot read the sessions directory: {e}");
            return 2;
        }
    };
    let mut out = super::stdout::lock();
    if a.json {
        let _ = writeln!(out, "{}", sessions_json(&list));
        return 0;
    }
    if list.is_empty() {
        let _ = writeln!(out, "no live proxy sessions");
        return 0;
    }
    let _ = writeln!(
        out,
        "{:<20}  {:>7}  {:<20}  {:>9}  {:<15}  SERVER",
        "NAME", "PID", "STARTED", "EVENTS", "FINDINGS E/W/I"
    );
    for e in &list {
        let _ = writeln!(out, "{}", row(e));
        // Each host session the proxy judged on its own, under its proxy.
        for h in &e.hosts {
            let [er, w, i] = h.findings;
            let _ = writeln!(
                out,
                "  └ host session {:<16}  {:>9}  {er}/{w}/{i}",
                crate::checks::finding::short_session(&h.session),
                ""
            );
        }
    }
    0
}

/// The entries as one JSON array, with the characters a terminal would hide
/// or obey (bidi controls, C1 controls, escapes) written as `\u` escapes, as
/// `call --json` writes a result: every entry file is anyone's text until
/// read, and the values stay exactly what they were.
fn sessions_json(list: &[Entry]) -> String {
    // The intercept token is a secret: only its entry file holds it.
    let shown: Vec<Entry> = list
        .iter()
        .cloned()
        .map(|mut e| {
            if let Some(i) = e.intercept.as_mut() {
                i.token.clear();
            }
            e
        })
        .collect();
    let plain = serde_json::to_string(&shown).unwrap_or_else(|_| "[]".into());
    crate::protocol::json_text::reformat(&plain, false).unwrap_or(plain)
}

/// One table row; every field of the entry file is sanitised, the numbers
/// excepted (they were parsed as numbers).
fn row(e: &Entry) -> String {
    let findings = e
        .findings
        .map_or_else(|| "-".into(), |[er, w, i]| format!("{er}/{w}/{i}"));
    let server = e
        .server
        .iter()
        .map(|w| crate::session::spec::shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "{:<20}  {:>7}  {:<20}  {:>9}  {:<15}  {}",
        one_line(&e.name),
        e.pid,
        one_line(&e.started),
        e.events,
        findings,
        one_line(&server)
    )
}

#[derive(Args, Debug, Clone)]
pub struct AttachArgs {
    /// The session's name (or pid), as `mcpscope sessions` lists it; may be
    /// left out when only one session runs.
    pub name: Option<String>,
    /// Print the timeline as text (as `replay --print`), following the
    /// session until it ends, instead of opening the TUI. A proxy that is
    /// killed before it closes the session ends it with an error (exit 3).
    #[arg(long)]
    pub print: bool,
    /// Take control of a proxy started with `--intercept`: set its
    /// breakpoint, forward, edit or drop what it holds, forge messages
    /// (docs/intercept.md#breakpoints). Every change is recorded.
    #[arg(long, conflicts_with = "print")]
    pub intercept: bool,
    /// With `--print`: print only the events FILTER selects (docs/filters.md).
    #[command(flatten)]
    pub only: super::only::OnlyArgs,
}

pub fn run_attach_print(a: AttachArgs) -> i32 {
    let mut only = match a.only.matcher() {
        Ok(m) => m,
        Err(code) => return code,
    };
    let entry = match registry::find(a.name.as_deref()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("[error] {}", one_line(&e.to_string()));
            return 2;
        }
    };
    let mut reader = match TraceReader::open_with(&entry.trace, |_| {
        crate::session::follow::Follow::open(&entry)
    }) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("[error] {}", one_line(&e.to_string()));
            return 2;
        }
    };
    let mut store = Store::default();
    let mut out = super::stdout::lock();
    // A stdio proxy's last event is its server's exit.
    let mut ended_with_exit = false;
    loop {
        match reader.next_event() {
            Ok(Some(e)) => {
                let seq =
                    store.append_recorded_owned(e.dir, &e.channel, e.t_us, e.bytes, e.in_batch);
                if let Some(ev) = store.get(seq) {
                    ended_with_exit = ev.dir == Dir::Meta && ev.method == Some("exit");
                    if !super::only::keep(&mut only, &ev) {
                        continue;
                    }
                    // Line by line: whoever reads this follows a live session.
                    if writeln!(out, "{}", super::replay::format_event(&ev))
                        .and_then(|()| out.flush())
                        .is_err()
                    {
                        return 0;
                    }
                }
            }
            Ok(None) => break,
            Err(e) => {
                eprintln!("[error] {}", one_line(&e.to_string()));
                return 2;
            }
        }
    }
    if let Some(d) = reader.damage() {
        eprintln!("[warning] the session's trace ends mid-line: {d}");
    }
    if ended_uncleanly(&entry, ended_with_exit) {
        eprintln!(
            "[error] the proxy (pid {}) ended without closing the session (killed or crashed): the trace stops at what it had written",
            entry.pid
        );
        return 3;
    }
    0
}

/// A proxy that ends closes its session: it removes its entry from the
/// sessions directory (and a stdio proxy records its server's exit last).
/// One that was killed leaves its entry behind, or its trace without that
/// last event; either tells a viewer the session did not end, it stopped.
fn ended_uncleanly(entry: &Entry, ended_with_exit: bool) -> bool {
    registry::left_behind(entry) || (entry.transport == "stdio" && !ended_with_exit)
}

#[derive(Args, Debug, Clone)]
pub struct WrapArgs {
    /// The host's config file (Claude Desktop, Cursor, Claude Code
    /// `.mcp.json`, VS Code `servers`, the Inspector).
    #[arg(long)]
    pub config: PathBuf,
    /// The entry to route through `mcpscope proxy`.
    #[arg(long)]
    pub server: String,
    /// Edit the file in place (after a backup beside it, FILE.bak);
    /// otherwise the rewritten entry is printed.
    #[arg(long)]
    pub write: bool,
    /// For a URL entry: where the HTTP proxy is to listen (default: a free
    /// loopback port).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<String>,
}

/// A loopback port free right now (for a proxy started later).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(8765, |a| a.port())
}

pub fn run_wrap(a: WrapArgs) -> i32 {
    let text = match crate::files::read_small(&a.config, crate::files::MAX_CONFIG_BYTES) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("[error] cannot read config {}: {e}", a.config.display());
            return 2;
        }
    };
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "mcpscope".into());
    let listen = a
        .listen
        .clone()
        .unwrap_or_else(|| format!("127.0.0.1:{}", free_port()));
    let w = match crate::proxy::wrap::wrap_text(&text, &a.config, &a.server, &exe, &listen) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("[error] {}", one_line(&e.0));
            return 2;
        }
    };
    // What the config held goes to a terminal: its invisible and
    // direction-changing characters as `\u` escapes (the entry is still the
    // same JSON) or, in the command line, as `<U+XXXX>`.
    let entry = crate::protocol::json_text::escape_invisible(
        &serde_json::to_string_pretty(&serde_json::json!({ &w.name: w.entry })).unwrap_or_default(),
    );
    let start = w.run.as_ref().map(|argv| {
        let line = argv
            .iter()
            .map(|w| crate::session::spec::shell_quote(w))
            .collect::<Vec<_>>()
            .join(" ");
        one_line(&line).into_owned()
    });
    if let Some(cmd) = &start {
        eprintln!(
            "[wrap] the host will connect to the proxy: keep it running with\n[wrap]   {cmd}"
        );
    }
    if !a.write {
        super::stdout::write(format!("{entry}\n").as_bytes());
        return 0;
    }
    match crate::proxy::wrap::write(&a.config, &w) {
        Ok(backup) => {
            eprintln!(
                "[wrap] {} rewritten; the original is in {}",
                one_line(&a.config.display().to_string()),
                one_line(&backup.display().to_string())
            );
            super::stdout::write(format!("{entry}\n").as_bytes());
            0
        }
        Err(e) => {
            // The error names the file that failed: the backup, the new
            // text's temporary file, or the config (a link's target).
            eprintln!("[error] {}", one_line(&e.to_string()));
            2
        }
    }
}
