//! The event loop: one biased `tokio::select!` over terminal input first,
//! then signals, effect results, a frame tick, the views' ingest and the
//! store's change signal. Each pass also moves a replay forward and (at
//! most once a second) the checks' clock; findings reach the App as
//! messages from a small forwarding task, and so do the results of
//! effects. What the store gained is taken in by slices of a few
//! milliseconds between input polls, so a key never waits behind a
//! flood's backlog; what the user did is drawn at once from what the
//! views hold (no ingest before it), the rest at most `fps` times a second.
//! The store's read lock is held while a slice is taken in or a frame's
//! rows are read, and released before widgets are painted and the
//! terminal is written.
//!
//! The Executor owns the live session. A restart replaces it: the old one
//! is stopped, the `restart` marker recorded, a new one opened from the
//! same launch into the same trace (its ids and tokens going on from the
//! old one's) and started; the runtime's owner stops whichever session is
//! current when the UI ends ([`Executor::close`]).

use super::action::{Effect, Msg};
use super::app::App;
use super::exit::{Ended, ExitSignals};
use super::terminal::Term;
use super::ui;
use crate::checks::LiveChecks;
use crate::client::{ClientError, Gone, Session};
use crate::event::Loss;
use crate::protocol::views::LogLevel;
use crate::session::Launch;
use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::layout::Rect;
use std::io::{self, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Runs effects against the session (if any); results come back as `Msg`s.
pub struct Executor {
    /// The current session; a restart puts a new one here.
    session: Arc<std::sync::Mutex<Option<Arc<Session>>>>,
    /// How to open the session again (a live session only).
    relaunch: Option<Launch>,
    /// Held while a restart replaces the session, and by [`Executor::close`]:
    /// true once closed, so no restart starts a server after the UI ended.
    closed: Arc<tokio::sync::Mutex<bool>>,
    pub tx: mpsc::UnboundedSender<Msg>,
    /// The protocol checks following the trace, when running.
    checks: Option<LiveChecks>,
    /// The level last sent with `logging/setLevel`, so it is sent only on change.
    level: Arc<tokio::sync::Mutex<Option<LogLevel>>>,
    /// The Composer's time limits, which the Resources and Prompts tabs'
    /// requests follow too (the event loop keeps them current).
    browse_limits: std::sync::Mutex<crate::client::Limits>,
    /// Told when the call asked for last has written its request: the
    /// next call waits for it, so calls reach the server in the order
    /// they were asked for (the same `--run` list gives the same screen).
    last_sent: std::sync::Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
    /// `attach --intercept`: commands to the proxy's control connection.
    intercept: Option<mpsc::UnboundedSender<crate::intercept::protocol::Command>>,
}

impl Executor {
    pub fn new(session: Option<Arc<Session>>, tx: mpsc::UnboundedSender<Msg>) -> Executor {
        Executor {
            session: Arc::new(std::sync::Mutex::new(session)),
            relaunch: None,
            closed: Arc::new(tokio::sync::Mutex::new(false)),
            tx,
            checks: None,
            level: Arc::new(tokio::sync::Mutex::new(None)),
            browse_limits: std::sync::Mutex::new(BROWSE_LIMITS),
            last_sent: std::sync::Mutex::new(None),
            intercept: None,
        }
    }

    /// Send `Effect::Intercept`s to an intercepting proxy's control connection.
    pub fn with_intercept(
        mut self,
        commands: mpsc::UnboundedSender<crate::intercept::protocol::Command>,
    ) -> Executor {
        self.intercept = Some(commands);
        self
    }

    /// The session effects go to now.
    pub fn session(&self) -> Option<Arc<Session>> {
        self.session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Let the user restart the session: `launch` opens it again.
    pub fn with_restart(mut self, launch: Launch) -> Executor {
        self.relaunch = Some(launch);
        self
    }

    /// Stop the current session's server (close stdin, grace, signals to
    /// its process group; over HTTP end the session), after a restart under
    /// way has finished, and let no restart begin after it. Every way out
    /// of the live UI ends here.
    pub async fn close(&self) {
        let mut closed = self.closed.lock().await;
        *closed = true;
        let current = self
            .session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(s) = current {
            // Bounded by the session's grace periods; the outer bound is a
            // last resort.
            let _ = tokio::time::timeout(STOP_BOUND, s.shutdown()).await;
        }
    }

    /// The limits the tabs' requests get from now on (the Composer's).
    pub fn set_browse_limits(&self, limits: crate::client::Limits) {
        *self.browse_limits.lock().unwrap_or_else(|e| e.into_inner()) = limits;
    }

    /// Check the trace with `checks`; its findings come back as `Msg::Findings`.
    pub fn with_checks(mut self, checks: LiveChecks) -> Executor {
        self.checks = Some(checks);
        self
    }

    /// Re-evaluate the time-based rules (stall) at the trace clock's time.
    /// On a blocking thread: the checker may be busy with a backlog, and the
    /// UI must not wait for its lock.
    pub fn tick_checks(&self) {
        if let Some(c) = self.checks.clone() {
            tokio::task::spawn_blocking(move || c.tick());
        }
    }

    /// Forward findings as they are published: the watch counter collapses
    /// bursts, and each wake-up pulls only the findings not yet sent.
    fn forward_findings(&self) {
        let Some(checks) = self.checks.clone() else {
            return;
        };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let mut rx = checks.subscribe();
            let mut sent = 0usize;
            let mut told = false;
            loop {
                let published = *rx.borrow_and_update();
                if !told && let Some(u) = checks.sessions_unknown() {
                    told = true;
                    let _ = tx.send(Msg::Notice(crate::checks::SessionsUnknown::notice(&u)));
                }
                if published > sent {
                    let c = checks.clone();
                    let Ok(fresh) =
                        tokio::task::spawn_blocking(move || c.findings_since(sent)).await
                    else {
                        break;
                    };
                    sent += fresh.len();
                    if tx.send(Msg::Findings(fresh)).is_err() {
                        break;
                    }
                }
                if rx.changed().await.is_err() {
                    break;
                }
            }
        });
    }

    /// The findings forwarder, then the handshake and tool listing, in the background.
    pub fn start(&self) {
        self.forward_findings();
        let Some(s) = self.session() else {
            return;
        };
        let _ = self.tx.send(Msg::Roots(s.roots()));
        begin(s, self.tx.clone());
    }

    /// Replace the session with a new one on the same server, in the
    /// background: stop the old one, record the `restart` marker, open the
    /// new one (ids and tokens going on from the old one's) and start it.
    fn restart(&self, attempt: u32) -> Option<Msg> {
        let Some(launch) = self.relaunch.clone() else {
            return Some(Msg::Notice(
                "nothing to restart: mcpscope did not start this session".into(),
            ));
        };
        let slot = self.session.clone();
        let closed = self.closed.clone();
        let level = self.level.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let closed = closed.lock().await;
            if *closed {
                return;
            }
            // Out of the slot: nothing more is sent to the old session.
            let old = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            let Some(old) = old else {
                return;
            };
            // What is left of the old server goes first (its exit is
            // recorded before the marker).
            let _ = tokio::time::timeout(STOP_BOUND, old.shutdown()).await;
            let seq = old.record_event(crate::event::Event::Restart { attempt });
            let _ = tx.send(Msg::Restarted { attempt, seq });
            // The new session has no level set yet.
            *level.lock().await = None;
            match launch.open(old.trace().clone()) {
                Ok(new) => {
                    new.continue_from(&old);
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(new.clone());
                    drop(closed);
                    begin(new, tx);
                }
                Err(e) => {
                    // The stopped session stays current: the next restart
                    // goes on from its numbering.
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(old);
                    let _ = tx.send(Msg::Handshake(Err(e.to_string())));
                }
            }
        });
        None
    }

    /// Perform one effect. Returns what it has to tell the App at once (the
    /// rest comes later on the channel), or None for `Quit`. `term` is
    /// where the terminal's own escapes (the clipboard's OSC 52) go.
    pub fn run(&self, effect: Effect, term: &mut impl Write) -> Option<Vec<Msg>> {
        let mut now = Vec::new();
        match effect {
            Effect::Quit => {
                // A task outlives its connection on a remote server: the
                // ones still followed are cancelled on the way out.
                if let Some(s) = &self.session() {
                    for task in s.followed_tasks() {
                        let _ = s.cancel_task_nowait(&task);
                    }
                }
                return None;
            }
            Effect::Restart { attempt } => now.extend(self.restart(attempt)),
            Effect::Intercept(c) => {
                // A closed connection was already reported by its reader.
                let sent = self.intercept.as_ref().is_some_and(|tx| tx.send(c).is_ok());
                if !sent {
                    now.push(Msg::Notice(
                        "not sent: the intercept connection is closed".into(),
                    ));
                }
            }
            Effect::Copy { text, what } => {
                use super::clipboard::{self, Landed};
                let bytes = text.len();
                if clipboard::in_tmux() {
                    // Inside tmux an application's OSC 52 is dropped by
                    // default: tmux is handed the text, off the UI thread,
                    // and its answer is the notice.
                    let tx = self.tx.clone();
                    std::thread::spawn(move || {
                        let landed = clipboard::via_tmux(&text);
                        let _ = tx.send(Msg::Notice(landed.notice(&what, bytes)));
                    });
                } else {
                    let _ = write!(term, "{}", clipboard::osc52(&text));
                    let _ = Write::flush(term);
                    now.push(Msg::Notice(Landed::Osc52.notice(&what, bytes)));
                }
            }
            Effect::SaveTest { stem, text } => {
                let tx = self.tx.clone();
                // Off the UI thread: a slow disk does not stall the screen.
                std::thread::spawn(move || {
                    let dir = std::env::current_dir().unwrap_or_else(|_| ".".into());
                    let notice = match super::app::save::write_fresh(&dir, &stem, &text) {
                        Ok(p) => {
                            let p = p.display().to_string();
                            format!(
                                "saved the session as a test file: {p} (mcpscope test {p} runs it)"
                            )
                        }
                        Err(e) => format!("cannot save the test file in {}: {e}", dir.display()),
                    };
                    let _ = tx.send(Msg::Notice(notice));
                });
            }
            Effect::SaveHtml { stem, text } => {
                let tx = self.tx.clone();
                // Off the UI thread, as a test file is written.
                std::thread::spawn(move || {
                    let dir = std::env::current_dir().unwrap_or_else(|_| ".".into());
                    let notice = match super::app::save::write_fresh_as(&dir, &stem, "html", &text)
                    {
                        Ok(p) => format!(
                            "saved the session as a page: {} (opens offline in any browser)",
                            p.display()
                        ),
                        Err(e) => format!("cannot save the page in {}: {e}", dir.display()),
                    };
                    let _ = tx.send(Msg::Notice(notice));
                });
            }
            Effect::OpenUrl(url) => {
                let tx = self.tx.clone();
                std::thread::spawn(move || {
                    if let Err(e) = crate::browser::open(&url) {
                        let _ = tx.send(Msg::Notice(format!("could not open a browser: {e}")));
                    }
                });
            }
            Effect::SetRoots(roots) => {
                if let Some(s) = &self.session()
                    && let Err(e) = s.set_roots(roots)
                {
                    now.push(Msg::Notice(format!(
                        "roots changed, but the server was not told: {e}"
                    )));
                }
            }
            Effect::AnswerServer { id, answer } => {
                if let Some(s) = &self.session()
                    && let Err(e) = s.answer_server(&id, answer)
                {
                    now.push(Msg::Notice(format!("answer not sent: {e}")));
                }
            }
            Effect::Browse(req) => {
                let Some(s) = self.session() else {
                    return Some(now);
                };
                let tx = self.tx.clone();
                let limits = *self.browse_limits.lock().unwrap_or_else(|e| e.into_inner());
                tokio::spawn(async move {
                    let result = browse_request(&s, &req, limits).await;
                    let _ = tx.send(Msg::Browse(req, result));
                });
            }
            Effect::Cancel { id } => {
                if let Some(s) = &self.session()
                    && let Err(e) = s.cancel(&id, "cancelled by the user in mcpscope")
                {
                    now.push(Msg::Notice(format!("cancel failed: {e}")));
                }
            }
            Effect::CancelTask { task_id } => {
                if let Some(s) = self.session() {
                    let tx = self.tx.clone();
                    tokio::spawn(async move {
                        let params = serde_json::json!({ "taskId": task_id });
                        let limits = s.options().handshake;
                        // Its answer (the task, cancelled) reaches the gauge through the trace.
                        if let Err(e) = s
                            .request(crate::protocol::methods::TASKS_CANCEL, Some(params), limits)
                            .await
                        {
                            let _ = tx.send(Msg::Notice(format!("tasks/cancel failed: {e}")));
                        }
                    });
                }
            }
            Effect::Raw {
                id,
                method,
                params,
                limits,
            } => {
                let Some(s) = self.session() else {
                    return Some(now);
                };
                match id {
                    None => {
                        if let Err(e) = s.notify(&method, params) {
                            now.push(Msg::Notice(format!("{method} not sent: {e}")));
                        }
                    }
                    Some(id) => {
                        let tx = self.tx.clone();
                        tokio::spawn(async move {
                            let msg = match s.request_with_id(id, &method, params, limits).await {
                                Ok(r) => format!("{method} answered (#{})", r.seq),
                                Err(e) => format!("{method}: {e}"),
                            };
                            let _ = tx.send(Msg::Notice(msg));
                        });
                    }
                }
            }
            Effect::Call {
                tool,
                args,
                token,
                level,
                limits,
                task,
            } => {
                let Some(s) = self.session() else {
                    return Some(now);
                };
                let (id, token) = s.prepare_call(&token);
                // Before the next key: the call's countdowns need its limits.
                now.push(Msg::CallPrepared {
                    id: id.clone(),
                    limits,
                });
                let tx = self.tx.clone();
                let level_sent = self.level.clone();
                let (sent, next) = tokio::sync::oneshot::channel();
                let before = self
                    .last_sent
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .replace(next);
                tokio::spawn(async move {
                    if let Some(before) = before {
                        // An error only says the call before ended early.
                        let _ = before.await;
                    }
                    if let Some(l) = level {
                        let mut cur = level_sent.lock().await;
                        if *cur != Some(l) {
                            let undeclared = "the server did not declare logging; logging/setLevel sent as asked";
                            match s.set_level(l).await {
                                Ok(asked) => {
                                    *cur = Some(l);
                                    if asked == crate::client::LevelAsked::Undeclared {
                                        let _ = tx.send(Msg::Notice(undeclared.into()));
                                    }
                                }
                                Err(e) => {
                                    let why = match e {
                                        // An RPC error names the method already.
                                        e @ crate::client::ClientError::Rpc { .. } => e.to_string(),
                                        e => format!("logging/setLevel failed: {e}"),
                                    };
                                    let _ = tx.send(Msg::Notice(if s.declares_logging() {
                                        why
                                    } else {
                                        format!("{undeclared}: {why}")
                                    }));
                                }
                            }
                        }
                    }
                    let outcome = if task {
                        written_then(
                            s.call_prepared_as_task(id.clone(), token, &tool, &args, limits),
                            sent,
                        )
                        .await
                    } else {
                        written_then(
                            s.call_prepared(id.clone(), token, &tool, &args, limits),
                            sent,
                        )
                        .await
                    };
                    match outcome {
                        // The response, timeout and exit are all in the trace already.
                        Ok(_) | Err(ClientError::Timeout { .. }) | Err(ClientError::Rpc { .. }) => {
                        }
                        Err(e) => {
                            let lost = matches!(
                                &e,
                                ClientError::Gone(Gone::Transport(Loss::Unreachable(_)))
                            );
                            let why = e.to_string();
                            let _ = tx.send(Msg::CallFailed {
                                id,
                                why: why.clone(),
                            });
                            if lost {
                                let _ = tx.send(Msg::ServerLost(why));
                            }
                        }
                    }
                });
            }
        }
        Some(now)
    }
}

/// Run a call, telling `sent` once its first poll is over. A call writes
/// its request in that first poll (the client sends synchronously before
/// it first waits), so that is when the next call may go.
async fn written_then<F: std::future::Future>(
    call: F,
    sent: tokio::sync::oneshot::Sender<()>,
) -> F::Output {
    let mut call = std::pin::pin!(call);
    let mut sent = Some(sent);
    std::future::poll_fn(|cx| {
        let r = call.as_mut().poll(cx);
        if let Some(s) = sent.take() {
            let _ = s.send(());
        }
        r
    })
    .await
}

/// The outer bound on stopping a session (its own grace periods come first).
const STOP_BOUND: Duration = Duration::from_secs(10);

/// Start a session in the background: its requests for the user are
/// forwarded, then the handshake and the tool listing run.
fn begin(s: Arc<Session>, tx: mpsc::UnboundedSender<Msg>) {
    if let Some(mut asks) = s.take_asks() {
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Some(a) = asks.recv().await {
                if tx.send(Msg::ServerAsk(a)).is_err() {
                    break;
                }
            }
        });
    }
    tokio::spawn(async move {
        match s.start().await {
            Ok(init) => {
                let _ = tx.send(Msg::Handshake(Ok(init)));
                let tools = s.list_tools().await.map_err(|e| e.to_string());
                let _ = tx.send(Msg::Tools(tools));
            }
            Err(e) => {
                let _ = tx.send(Msg::Handshake(Err(e.to_string())));
            }
        }
    });
}

/// Limits of the Resources and Prompts tabs' requests until the Composer's
/// are known: a listing or a read the user waits for.
const BROWSE_LIMITS: crate::client::Limits = crate::client::Limits {
    idle: Some(Duration::from_secs(30)),
    max: Some(Duration::from_secs(120)),
};

/// Send one of the tabs' requests; listings follow every page.
async fn browse_request(
    s: &Session,
    req: &super::browse::Req,
    limits: crate::client::Limits,
) -> Result<serde_json::Value, String> {
    if let super::browse::Req::Watch { uris, .. } = req {
        return s
            .listen_resources(uris.clone())
            .await
            .map(|granted| serde_json::json!({ "resourceSubscriptions": granted }))
            .map_err(|e| e.to_string());
    }
    if req.is_listing() {
        let listing = s
            .request_pages(req.method(), req.params(), limits, |p| p)
            .await
            .map_err(|e| e.to_string())?;
        serde_json::from_str(&listing.joined).map_err(|e| e.to_string())
    } else {
        s.request(req.method(), req.params(), limits)
            .await
            .map(|r| r.result)
            .map_err(|e| e.to_string())
    }
}

/// Whether to draw now: changes wait for the next frame (a flood redraws
/// at most `fps` times a second), but what the user did is drawn at once,
/// not up to a frame later: a key is worth a frame of its own.
fn draw_due(dirty: bool, behind: bool, input: bool, since: Duration, frame: Duration) -> bool {
    (dirty && input) || ((dirty || behind) && since >= frame)
}

/// How long one slice of ingest holds the store's read lock, at most
/// about: the longest a key waits for the loop (ingest, for its part,
/// waits at most this long for the lock).
const INGEST_SLICE: Duration = Duration::from_millis(4);

/// Take in one slice of what the store gained, on the wall clock.
fn ingest(app: &mut App) {
    let trace = app.trace().clone();
    let store = trace.read();
    let start = Instant::now();
    app.sync_until(&store, || start.elapsed() >= INGEST_SLICE);
}

/// What a frame takes in from the store before it is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intake {
    /// A full pass (the first frame).
    Full,
    /// Nothing: a frame for what the user did shows it from what the views
    /// already hold, at once.
    Nothing,
}

/// Sync the views and draw one frame. The lock covers the sync and the
/// reading of the rows on screen; painting and the terminal write happen
/// after it is released, so neither a slow terminal nor widget rendering
/// stalls ingest.
pub fn draw<B: Backend>(
    app: &mut App,
    term: &mut Terminal<B>,
    intake: Intake,
) -> Result<(), B::Error> {
    term.autoresize()?;
    let size = term.size()?;
    if (size.width, size.height) != (app.shell.width, app.shell.height) {
        app.resize(size.width, size.height);
    }
    let area = Rect::new(0, 0, size.width, size.height);
    let trace = app.trace().clone();
    let prepared = {
        let store = trace.read();
        match intake {
            Intake::Full => {
                app.sync_with(&store);
            }
            Intake::Nothing => app.settle_frame(&store),
        }
        ui::prepare(area, &app.view(), &store)
    };
    let mut frame = term.get_frame();
    let map = ui::paint(&mut frame, &app.view(), prepared);
    term.apply_buffer()?;
    app.drawn(map);
    app.dirty = false;
    Ok(())
}

/// Run until the user quits, the input ends, or SIGTERM/SIGHUP arrives;
/// says which. A failed terminal write is an error.
pub async fn event_loop(
    app: &mut App,
    term: &mut Term,
    exec: &Executor,
    mut msgs: mpsc::UnboundedReceiver<Msg>,
    signals: &mut ExitSignals,
    fps: u32,
    started: Instant,
) -> io::Result<Ended> {
    let frame = Duration::from_secs_f64(1.0 / f64::from(fps));
    // Clocks and spinners of running calls tick at most 10 times a second.
    let clock = frame.max(Duration::from_millis(100));
    let mut events = EventStream::new();
    let mut changed = app.trace().subscribe();
    let mut tick = tokio::time::interval(frame);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);

    // Replay time and the checks' tick are measured on tokio's clock.
    let mut last_advance = tokio::time::Instant::now();
    let mut last_check_tick = last_advance;
    draw(app, term, Intake::Full)?;
    if let Some(path) = std::env::var_os("MCPSCOPE_TIMINGS") {
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let _ = std::fs::write(path, format!("first_frame_ms={ms:.1}\n"));
    }
    // For the check that a UI bug in the shipped (aborting) binary still
    // restores the terminal and stops the server (docs/development.md).
    let test_panic = std::env::var_os("MCPSCOPE_TEST_PANIC").is_some_and(|v| v == "ui");
    let mut last_draw = Instant::now();
    let mut ended = Ended::Quit;
    loop {
        let mut input = false;
        let effects = tokio::select! {
            // A key is taken before anything else that is ready.
            biased;
            ev = events.next() => {
                // What the user did; a pointer merely moving is not drawn at once.
                input = !matches!(
                    &ev,
                    Some(Ok(Event::Mouse(m))) if m.kind == crossterm::event::MouseEventKind::Moved
                );
                match ev {
                    Some(Ok(Event::Key(_))) if test_panic => {
                        panic!("MCPSCOPE_TEST_PANIC=ui: a deliberate panic on a key")
                    }
                    Some(Ok(Event::Key(k))) => app.handle_key(k),
                    Some(Ok(Event::Mouse(m))) => app.handle_mouse(m),
                    Some(Ok(Event::Paste(p))) => { app.handle_paste(&p); Vec::new() }
                    Some(Ok(Event::Resize(w, h))) => { app.resize(w, h); Vec::new() }
                    Some(Ok(_)) => Vec::new(),
                    Some(Err(_)) | None => vec![Effect::Quit],
                }
            }
            sig = signals.recv() => {
                ended = Ended::Signal(sig);
                vec![Effect::Quit]
            }
            Some(msg) = msgs.recv() => app.on_msg(msg),
            _ = tick.tick() => Vec::new(),
            // One slice, then input is polled again.
            () = std::future::ready(()), if app.behind => {
                ingest(app);
                Vec::new()
            }
            res = changed.changed() => {
                if res.is_ok() { app.behind = true; }
                Vec::new()
            }
        };
        // Effects may answer with messages, whose effects run in turn.
        let mut queue = std::collections::VecDeque::from(effects);
        queue.extend(app.due());
        exec.set_browse_limits(app.panes.composer.limits());
        while let Some(e) = queue.pop_front() {
            let Some(msgs) = exec.run(e, term.backend_mut()) else {
                return Ok(ended);
            };
            for m in msgs {
                queue.extend(app.on_msg(m));
            }
        }
        if app.should_quit() {
            return Ok(ended);
        }
        let now = tokio::time::Instant::now();
        app.advance_replay(now - last_advance);
        last_advance = now;
        if now - last_check_tick >= Duration::from_secs(1) {
            exec.tick_checks();
            last_check_tick = now;
        }
        let since = last_draw.elapsed();
        let live = (app.panes.progress.calls.running() > 0 || app.holding()) && since >= clock;
        if draw_due(app.dirty, app.behind, input, since, frame) || live {
            draw(app, term, Intake::Nothing)?;
            last_draw = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::draw_due;
    use std::time::Duration;

    #[test]
    fn a_key_is_drawn_at_once_and_a_flood_once_a_frame() {
        let frame = Duration::from_millis(33);
        let soon = Duration::from_millis(5);
        // A key that changed the screen 5 ms after the last frame.
        assert!(draw_due(true, true, true, soon, frame));
        // The store moved on: that waits for the frame.
        assert!(!draw_due(false, true, false, soon, frame));
        assert!(draw_due(false, true, false, frame, frame));
        // Input that changed nothing (a key nobody binds) draws nothing.
        assert!(!draw_due(false, false, true, soon, frame));
    }
}
