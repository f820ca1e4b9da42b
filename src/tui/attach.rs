//! `mcpscope attach [NAME]`: the TUI on a live proxy session, read-only. A
//! thread follows the session's trace as the proxy writes it (first the
//! session so far, then each event as it comes) into a store of our own;
//! the panes and checks work on it as on a live session, but there is no
//! session to send on: the composer and cancel are off, nothing is injected
//! into someone else's session. With `--intercept` the proxy was started
//! to be steered: its control connection is taken too, and the Intercept
//! overlay forwards, edits, drops and forges through it (the proxy records
//! each change).

use super::settings::clamp_fps;
use super::{AppOptions, action, exit, format, run_ui, runtime};
use crate::session::follow::Follow;
use crate::session::registry;
use crate::trace::reader::TraceReader;
use crate::trace::{MonotonicClock, Store, Trace};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Returns the process exit code. With `intercept`, the TUI also takes the
/// proxy's control connection (`proxy --intercept`): its breakpoint and
/// what it holds are the user's to decide.
pub async fn attach(name: Option<&str>, intercept: bool) -> i32 {
    let started = Instant::now();
    // Said before the terminal is asked for: the answer does not depend on it.
    let endpoint = if intercept {
        match intercept_endpoint(name) {
            Ok(ep) => Some(ep),
            Err(e) => {
                eprintln!("[error] {e}");
                return 2;
            }
        }
    } else {
        None
    };
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        eprintln!(
            "[error] attach needs a terminal: stdin and stdout must both be a TTY.\n\
             [error] to follow the session as text instead, use\n\
             [error]   mcpscope attach {} --print",
            name.map_or_else(String::new, format::shell_quote)
        );
        return 2;
    }
    let entry = match registry::find(name) {
        Ok(e) => e,
        Err(e) => {
            eprintln!(
                "[error] {}",
                crate::protocol::sanitize::one_line(&e.to_string())
            );
            return 2;
        }
    };
    let (settings, theme) = match super::settings_and_theme(None) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("[error] {e}");
            return 2;
        }
    };
    let mut reader = match TraceReader::open_with(&entry.trace, |_| Follow::open(&entry)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "[error] {}",
                crate::protocol::sanitize::one_line(&e.to_string())
            );
            return 2;
        }
    };
    let server_json = reader.header().get("server").cloned();
    // The trace's times count from the proxy's start; so does our clock,
    // so ages and rates read as they do in the proxy.
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let since = Duration::from_millis(now_ms.saturating_sub(entry.started_ms));
    let mut limits = crate::trace::StoreLimits::default();
    if let Some(max) = settings.max_store {
        limits.max_bytes = max;
    }
    let trace = Trace::new(Store::new(limits), MonotonicClock::since(since));
    // Connected before the screen is taken, so a refusal is said plainly.
    let client = match &endpoint {
        Some(ep) => match crate::intercept::client::connect(&ep.addr, &ep.token).await {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!(
                    "[error] cannot reach the intercept control of `{}` at {}: {}",
                    crate::protocol::sanitize::one_line(&entry.name),
                    crate::protocol::sanitize::one_line(&ep.addr),
                    e
                );
                return 2;
            }
        },
        None => None,
    };
    let fps = clamp_fps(settings.fps);
    let mut signals = exit::ExitSignals::catch();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let t = trace.clone();
    let notices = tx.clone();
    let who = format!("{} (pid {})", entry.name, entry.pid);
    std::thread::Builder::new()
        .name("attach-follow".into())
        .spawn(move || {
            let end = loop {
                match reader.next_event() {
                    Ok(Some(e)) => {
                        t.append(|s, _| {
                            s.append_recorded(e.dir, &e.channel, e.t_us, &e.bytes, e.in_batch)
                        });
                    }
                    Ok(None) => {
                        break match reader.damage() {
                            Some(d) => format!("session {who} ended: {d}"),
                            None => format!("session {who} ended; its events stay here"),
                        };
                    }
                    Err(e) => break format!("following {who} stopped: {e}"),
                }
            };
            let _ = notices.send(action::Msg::Notice(end));
        })
        .ok();
    let opts = AppOptions {
        theme,
        keymap: settings.keymap.clone(),
        fps,
        stale_after_us: settings.stale_after_us,
        idle_timeout_secs: settings.idle_timeout_secs,
        max_timeout_secs: settings.max_timeout_secs,
        arrangement: settings.layout,
        server_cli: format!("# attached to {}", entry.name).into(),
        spec_name: format::safe(&entry.name, 60),
        transport: format!("{} · attached (pid {})", entry.transport, entry.pid),
        recording: (!entry.owned_trace).then(|| entry.trace.display().to_string()),
        runs: Vec::new(),
        run_level: None,
        focus: None,
        live: false,
        playback: None,
        wall_start: Some(super::panes::scope::WallStart {
            unix_us: entry.started_ms.saturating_mul(1000),
            exact: true,
        }),
        server_json,
    };
    let mut app = super::App::new(trace.clone(), opts);
    let mode = if endpoint.is_some() {
        "intercepting (I: breakpoints and held messages)"
    } else {
        "read-only"
    };
    app.on_msg(action::Msg::Notice(format!(
        "attached to {} (pid {}): {mode}, host→server is `out`, server→host `in`",
        entry.name, entry.pid
    )));
    let observed = crate::session::live::Observed::checking(trace.clone(), settings.checks.clone());
    let mut exec = runtime::Executor::new(None, tx.clone());
    if let Some(mut c) = client {
        app.enable_intercept();
        exec = exec.with_intercept(c.commands);
        tokio::spawn(async move {
            while let Some(ev) = c.events.recv().await {
                if tx.send(action::Msg::Intercept(ev)).is_err() {
                    break;
                }
            }
        });
    }
    if let Some(c) = observed.checks() {
        exec = exec.with_checks(c.clone());
    }
    let ui = run_ui(&mut app, &exec, rx, &mut signals, fps, started);
    let result = exit::stop_after(ui, async {}).await;
    // Nothing is recorded or exported here: this stops the checks.
    let _ = observed.end(std::future::pending()).await;
    exit::code_of(result)
}

/// The control endpoint of the session `name` names, or why there is none.
fn intercept_endpoint(name: Option<&str>) -> Result<registry::InterceptEndpoint, String> {
    let entry = registry::find(name)
        .map_err(|e| crate::protocol::sanitize::one_line(&e.to_string()).into_owned())?;
    entry.intercept.ok_or_else(|| {
        format!(
            "the proxy `{}` was not started with --intercept (start it as \
             `mcpscope proxy --intercept -- CMD` to set breakpoints)",
            crate::protocol::sanitize::one_line(&entry.name)
        )
    })
}
