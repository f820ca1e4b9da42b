//! Shared fixtures for the TUI tests: a trace fed by hand on a manual clock
//! (so every timestamp, elapsed time and spinner frame is deterministic), an
//! App over it, and a TestBackend render to text.

use mcpscope::protocol::views::InitializeResult;
use mcpscope::trace::{Dir, ManualClock, Store, Trace};
use mcpscope::tui::calls::CallStatus;
use mcpscope::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;

// What nearly every test module names: the App, its inputs and outputs.
pub use crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
pub use mcpscope::tui::action::{Action, Effect, Msg};
pub use mcpscope::tui::{App, AppOptions};
pub use serde_json::{Value, json};

/// A key without modifiers; what the App asked for in return.
pub fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// Each character of `text` as a key; every effect they asked for.
pub fn typed(app: &mut App, text: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for c in text.chars() {
        out.extend(key(app, KeyCode::Char(c)));
    }
    out
}

pub fn status(app: &App, id: i64) -> CallStatus {
    app.panes
        .progress
        .calls
        .get(&mcpscope::protocol::IdKey::Int(id))
        .expect("call")
        .status
}

pub struct Scenario {
    pub trace: Trace,
    pub clock: Arc<ManualClock>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario::new()
    }
}

impl Scenario {
    pub fn new() -> Scenario {
        let clock = ManualClock::new();
        let trace = Trace::new(Store::default(), clock.clone());
        Scenario { trace, clock }
    }

    pub fn at_ms(&self, ms: u64) -> &Scenario {
        self.clock.set_us(ms * 1000);
        self
    }

    /// A frame mcpscope sent on an HTTP channel (`post:3`…).
    pub fn out_on(&self, channel: &str, frame: Value) -> u64 {
        let b = frame.to_string();
        self.trace
            .append(|s, now| s.append_frame(Dir::Out, channel, now, b.as_bytes(), &mut Vec::new()))
    }

    /// A frame received on an HTTP channel.
    pub fn inn_on(&self, channel: &str, frame: Value) -> u64 {
        let b = frame.to_string();
        self.trace
            .append(|s, now| s.append_frame(Dir::In, channel, now, b.as_bytes(), &mut Vec::new()))
    }

    /// A transport event on a channel, as the HTTP transport records them.
    pub fn meta_on(&self, channel: &str, ev: Value) -> u64 {
        self.trace.append(|s, now| s.append_meta(channel, now, &ev))
    }

    pub fn out(&self, frame: Value) -> u64 {
        let b = frame.to_string();
        self.trace
            .append(|s, now| s.append_frame(Dir::Out, "stdio", now, b.as_bytes(), &mut Vec::new()))
    }

    pub fn inn(&self, frame: Value) -> u64 {
        let b = frame.to_string();
        self.trace
            .append(|s, now| s.append_frame(Dir::In, "stdio", now, b.as_bytes(), &mut Vec::new()))
    }

    pub fn raw_in(&self, bytes: &[u8]) -> u64 {
        self.trace
            .append(|s, now| s.append_frame(Dir::In, "stdio", now, bytes, &mut Vec::new()))
    }

    pub fn stderr(&self, line: &str) -> u64 {
        self.trace
            .append(|s, now| s.append_stderr("stdio", now, line.as_bytes()))
    }

    pub fn meta(&self, ev: Value) -> u64 {
        self.trace.append(|s, now| s.append_meta("stdio", now, &ev))
    }

    pub fn call(&self, id: i64, tool: &str, args: Value, token: Option<Value>) -> u64 {
        let mut params = json!({"name": tool, "arguments": args});
        if let Some(t) = token {
            params["_meta"] = json!({"progressToken": t});
        }
        self.out(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
    }

    pub fn progress(&self, token: Value, p: f64, total: Option<f64>, msg: &str) -> u64 {
        let mut params = json!({"progressToken": token, "progress": p, "message": msg});
        if let Some(t) = total {
            params["total"] = json!(t);
        }
        self.inn(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}))
    }

    pub fn log(&self, level: &str, logger: &str, data: Value) -> u64 {
        self.inn(json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": level, "logger": logger, "data": data}}))
    }

    pub fn result(&self, id: i64, text: &str, is_error: bool) -> u64 {
        self.inn(json!({"jsonrpc": "2.0", "id": id,
            "result": {"content": [{"type": "text", "text": text}], "isError": is_error}}))
    }
}

pub fn tools() -> Vec<Value> {
    vec![
        json!({"name": "upload_file", "title": "Upload a file",
               "description": "Reads a (simulated) file chunk by chunk while preparing an upload; progress counts bytes read against the file size.",
               "inputSchema": {"type": "object", "properties": {
                   "size_bytes": {"type": "integer", "description": "Total size in bytes.", "default": 5242880, "minimum": 0},
                   "chunk_bytes": {"type": "integer", "description": "Bytes per chunk.", "default": 524288, "minimum": 1},
                   "delay_ms": {"type": "integer", "description": "Time per chunk in milliseconds.", "default": 250},
                   "path": {"type": "string", "description": "File to upload.", "default": "./release.tar.gz"}}}}),
        json!({"name": "context_builder", "title": "Build model context",
               "description": "Builds a model context in phases with heartbeats in between.",
               "inputSchema": {"type": "object", "properties": {
                   "duration_ms": {"type": "integer", "default": 6000}}}}),
        json!({"name": "interactive_wizard", "title": "New project wizard",
               "description": "Asks a few questions; progress steps count from 0.",
               "inputSchema": {"type": "object", "properties": {"questions": {"type": "integer", "default": 3}}}}),
        json!({"name": "echo", "title": "Echo", "description": "Returns its arguments as JSON text.",
               "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                               "required": ["text"], "additionalProperties": true}}),
        json!({"name": "pipeline_wait", "title": "Wait for a CI pipeline",
               "description": "Polls a CI pipeline until it finishes.",
               "inputSchema": {"type": "object", "properties": {
                   "polls": {"type": "integer", "default": 5},
                   "outcome": {"type": "string", "enum": ["success", "failed"], "default": "success"}}}}),
    ]
}

pub fn init_result() -> InitializeResult {
    serde_json::from_value(json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"logging": {}, "tools": {}},
        "serverInfo": {"name": "mcpscope-demo", "version": "0.1.0"}
    }))
    .unwrap()
}

/// An App over the scenario's trace, connected, with the demo's tools.
pub fn app(sc: &Scenario) -> App {
    let mut app = App::new(sc.trace.clone(), AppOptions::default());
    app.set_server(&init_result());
    app.on_msg(mcpscope::tui::action::Msg::Handshake(Ok(init_result())));
    app.on_msg(mcpscope::tui::action::Msg::Tools(Ok(tools())));
    app.sync();
    app
}

/// Like `app`, for an HTTP session (the header names the transport).
pub fn http_app(sc: &Scenario) -> App {
    let opts = AppOptions {
        transport: "streamable-http".into(),
        server_cli: "--url http://127.0.0.1:8181/mcp".into(),
        spec_name: "http://127.0.0.1:8181/mcp".into(),
        ..AppOptions::default()
    };
    let mut app = App::new(sc.trace.clone(), opts);
    app.set_server(&init_result());
    app.on_msg(mcpscope::tui::action::Msg::Handshake(Ok(init_result())));
    app.on_msg(mcpscope::tui::action::Msg::Tools(Ok(tools())));
    app.sync();
    app
}

/// Render the whole screen to text (symbols only, one line per row).
pub fn render(app: &mut App, w: u16, h: u16) -> String {
    app.resize(w, h);
    app.sync();
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let trace = app.trace().clone();
    let store = trace.read();
    term.draw(|f| ui::draw(f, &app.view(), &store)).unwrap();
    let buf = term.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        let mut line = String::new();
        for x in 0..w {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    // Volatile text: the crate version changes with releases, not with behaviour.
    out.replace(env!("CARGO_PKG_VERSION"), "[version]")
}

/// A session mid-way: an upload with a total (bytes), a context build
/// without one, a wizard counting steps from 0, a finished echo, a
/// cancelled poll, logs at several levels (one with an escape sequence),
/// stderr, and a line that is not JSON.
pub fn mid_progress() -> Scenario {
    let sc = Scenario::new();
    sc.at_ms(1)
        .meta(json!({"event": "spawn", "argv": ["mcpscope", "demo-server"], "pid": 4242}));
    sc.at_ms(2).out(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}));
    sc.at_ms(5).stderr("mcpscope-demo: started");
    sc.at_ms(9).inn(json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"logging": {}}, "serverInfo": {"name": "mcpscope-demo", "version": "0.1.0"}}}));
    sc.at_ms(10)
        .out(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    sc.at_ms(100).call(
        1,
        "upload_file",
        json!({"size_bytes": 5242880}),
        Some(json!("mcpscope-1")),
    );
    sc.at_ms(110)
        .call(2, "context_builder", json!({}), Some(json!("mcpscope-2")));
    sc.at_ms(120).call(
        3,
        "interactive_wizard",
        json!({"questions": 3}),
        Some(json!(3)),
    );
    sc.at_ms(130).call(4, "echo", json!({"text": "hi"}), None);
    sc.at_ms(135).result(4, "{\"text\":\"hi\"}", false);
    sc.at_ms(140).call(
        5,
        "pipeline_wait",
        json!({"polls": 9}),
        Some(json!("mcpscope-5")),
    );
    let upload = |ms: u64, k: u64| {
        let b = (k * 524_288) as f64;
        sc.at_ms(ms).progress(
            json!("mcpscope-1"),
            b,
            Some(5_242_880.0),
            &format!("Read {} / 5242880 bytes, preparing the upload", b as u64),
        );
    };
    sc.at_ms(150).progress(
        json!("mcpscope-2"),
        1.0,
        None,
        "[discovering] provider_process_starting",
    );
    sc.at_ms(160).progress(
        json!(3),
        0.0,
        Some(3.0),
        "Step 1 of 3: What should the project be called?",
    );
    sc.at_ms(300).progress(
        json!("mcpscope-5"),
        1.0,
        None,
        "Pipeline #42: running (poll 1)",
    );
    upload(350, 1);
    sc.at_ms(420).progress(
        json!("mcpscope-2"),
        2.0,
        None,
        "[discovering] child_connection_observed",
    );
    sc.at_ms(500).log(
        "info",
        "tracker",
        json!("Starting task 1/5: Resolve dependencies"),
    );
    sc.at_ms(520).log(
        "warning",
        "tracker",
        json!({"task": 2, "retries": 2, "note": "flaky tests"}),
    );
    sc.at_ms(540)
        .log("error", "tracker", json!("disk \u{1b}[31mfull\u{1b}[0m"));
    sc.at_ms(560).log("debug", "tracker", json!("cache hit"));
    sc.at_ms(600).out(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "cancelled by the user in mcpscope"}}));
    upload(600, 2);
    sc.at_ms(620).result(5, "Pipeline #42 cancelled", false);
    sc.at_ms(650).progress(
        json!(3),
        1.0,
        Some(3.0),
        "Step 2 of 3: Who can see it (private, internal or public)?",
    );
    sc.at_ms(700).raw_in(b"Starting server on port 3000...");
    sc.at_ms(820).progress(
        json!("mcpscope-2"),
        3.0,
        None,
        "[discovering] routing_confirmed",
    );
    upload(850, 3);
    upload(1100, 4);
    sc.at_ms(1400);
    sc
}

/// A Streamable HTTP session as the transport records it: initialize on
/// `post:1` (SSE, priming, session id), `notifications/initialized` (202),
/// the standalone GET stream, an upload on `post:3` whose stream the server
/// closes after two progress notifications and mcpscope resumes with a GET,
/// a call answered with plain JSON, a POST answered by a 500 HTML page, and
/// a call still streaming.
pub fn http_session() -> Scenario {
    let sc = Scenario::new();
    let sid = "demo-00000001";
    sc.at_ms(1).out_on("post:1", json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcpscope", "version": "0"}}}));
    sc.at_ms(3).meta_on("post:1", json!({"event": "http", "method": "POST", "status": 200, "content_type": "text/event-stream", "session": sid, "ms": 2}));
    sc.at_ms(3).meta_on(
        "post:1",
        json!({"event": "sse-priming", "id": "1-0", "retry_ms": 200}),
    );
    sc.at_ms(4).inn_on("post:1", json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"logging": {}, "tools": {}}, "serverInfo": {"name": "mcpscope-demo", "version": "0.1.0"}}}));
    sc.at_ms(4)
        .meta_on("post:1", json!({"event": "stream-end"}));
    sc.at_ms(5).out_on(
        "post:2",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    sc.at_ms(6).meta_on("post:2", json!({"event": "http", "method": "POST", "status": 202, "content_type": "text/plain", "session": null, "ms": 1}));
    sc.at_ms(7).meta_on("get", json!({"event": "http", "method": "GET", "status": 200, "content_type": "text/event-stream", "session": null, "ms": 1}));
    sc.at_ms(10).out_on("post:3", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "upload_file", "arguments": {"size_bytes": 100000}, "_meta": {"progressToken": "mcpscope-1"}}}));
    sc.at_ms(11).meta_on("post:3", json!({"event": "http", "method": "POST", "status": 200, "content_type": "text/event-stream", "session": null, "ms": 1}));
    sc.at_ms(11).meta_on(
        "post:3",
        json!({"event": "sse-priming", "id": "2-0", "retry_ms": 200}),
    );
    let progress = |ms: u64, p: u64| {
        sc.at_ms(ms).inn_on("post:3", json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "mcpscope-1", "progress": p, "total": 100000, "message": format!("Read {p} / 100000 bytes, preparing the upload")}}));
    };
    progress(60, 25000);
    progress(110, 50000);
    sc.at_ms(160)
        .meta_on("post:3", json!({"event": "stream-end"}));
    sc.at_ms(160).meta_on(
        "post:3",
        json!({"event": "resume", "last_event_id": "2-2", "after_ms": 200, "attempt": 1}),
    );
    sc.at_ms(362).meta_on("post:3", json!({"event": "http", "method": "GET", "status": 200, "content_type": "text/event-stream", "session": null, "ms": 1}));
    progress(363, 75000);
    progress(364, 100000);
    sc.at_ms(365).inn_on("post:3", json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "Uploaded release.tar.gz (100000 bytes)"}], "isError": false}}));
    sc.at_ms(365).meta_on(
        "post:3",
        json!({"event": "stream-released", "reason": "the response arrived"}),
    );
    sc.at_ms(400).out_on(
        "post:4",
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    sc.at_ms(404).meta_on("post:4", json!({"event": "http", "method": "POST", "status": 200, "content_type": "application/json", "session": null, "ms": 4}));
    sc.at_ms(404).inn_on(
        "post:4",
        json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}),
    );
    sc.at_ms(500).out_on("post:5", json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}));
    sc.at_ms(530).meta_on("post:5", json!({"event": "http", "method": "POST", "status": 500, "content_type": "text/html; charset=utf-8", "session": null, "ms": 30}));
    sc.at_ms(530).trace.append(|s, now| {
        s.append_frame(
            Dir::In,
            "post:5",
            now,
            b"<html><body>Internal Server Error</body></html>",
            &mut Vec::new(),
        )
    });
    sc.at_ms(530).meta_on("post:5", json!({"event": "failed", "request": 3, "error": "HTTP 500 Internal Server Error: <html><body>Internal Server Error</body></html>"}));
    sc.at_ms(600).out_on("post:6", json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "context_builder", "arguments": {}, "_meta": {"progressToken": "mcpscope-4"}}}));
    sc.at_ms(602).meta_on("post:6", json!({"event": "http", "method": "POST", "status": 200, "content_type": "text/event-stream", "session": null, "ms": 2}));
    sc.at_ms(602).meta_on(
        "post:6",
        json!({"event": "sse-priming", "id": "4-0", "retry_ms": 200}),
    );
    sc.at_ms(700).inn_on("post:6", json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "mcpscope-4", "progress": 1, "message": "[discovering] provider_process_starting"}}));
    sc.at_ms(900);
    sc
}

/// Run the rule engine over everything in the scenario's store, as the live
/// checks would, and return the findings.
pub fn check_all(sc: &Scenario) -> Vec<mcpscope::checks::Finding> {
    // The scenarios are mcpscope's own live sessions (a tokenless echo
    // chosen in the composer, a poll cancelled with the cancel key), checked
    // as the TUI checks them.
    let cfg = mcpscope::checks::CheckConfig {
        own_client: true,
        ..mcpscope::checks::CheckConfig::default()
    };
    let mut checker = mcpscope::checks::Checker::new(cfg);
    let store = sc.trace.read();
    let mut out = Vec::new();
    for ev in store.range(0, store.next_seq()) {
        checker.observe(&ev, &mut out);
    }
    out
}

/// The mid-progress session plus a server that breaks two rules: the upload
/// goes backwards (error) and overshoots its total (warning).
pub fn with_faults() -> Scenario {
    let sc = mid_progress();
    sc.at_ms(1200).progress(
        json!("mcpscope-1"),
        1_048_576.0,
        Some(5_242_880.0),
        "Read 1048576 / 5242880 bytes, preparing the upload",
    );
    sc.at_ms(1300)
        .progress(json!(3), 4.0, Some(3.0), "Step 5 of 3: one more question");
    sc.at_ms(1400);
    sc
}

/// The scenario's events as a recorded trace file would give them back.
pub fn recorded(sc: &Scenario) -> Vec<mcpscope::trace::record::RecordedEvent> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let header = json!({"mcpscope_trace": 1, "version": "test", "started": "2026-01-01T00:00:00Z",
        "server": {"name": "demo", "transport": "stdio"}});
    {
        let mut rec = mcpscope::trace::record::Recorder::create(&path, &header).unwrap();
        let store = sc.trace.read();
        for ev in store.range(0, store.next_seq()) {
            rec.write_event(&ev);
        }
        rec.flush();
    }
    mcpscope::trace::reader::read_trace(&path).unwrap().1
}

/// A pane's box on the screen: the row and columns of its top border (the
/// one whose title starts `title`), and its rows inside the border.
pub struct PaneBox {
    pub top: usize,
    pub left: usize,
    pub right: usize,
    pub rows: Vec<String>,
}

fn grid(screen: &str) -> Vec<Vec<char>> {
    screen.lines().map(|l| l.chars().collect()).collect()
}

pub fn pane(screen: &str, title: &str) -> PaneBox {
    let g = grid(screen);
    let corners = ['╭', '┏'];
    for (y, row) in g.iter().enumerate() {
        let line: String = row.iter().collect();
        let Some(at) = line.find(&format!(" {title}")) else {
            continue;
        };
        let at = line[..at].chars().count();
        let Some(left) = (0..at).rev().find(|x| corners.contains(&row[*x])) else {
            continue;
        };
        let right = (at..row.len())
            .find(|x| ['╮', '┓'].contains(&row[*x]))
            .expect("top-right corner");
        let mut rows = Vec::new();
        for r in &g[y + 1..] {
            if r.len() <= left || ['╰', '┗'].contains(&r[left]) {
                break;
            }
            rows.push(r[left + 1..right.min(r.len())].iter().collect());
        }
        return PaneBox {
            top: y,
            left,
            right,
            rows,
        };
    }
    panic!("no pane titled {title}:\n{screen}");
}
