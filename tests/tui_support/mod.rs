//! Shared fixtures for the TUI tests: a trace fed by hand on a manual clock
//! (so every timestamp, elapsed time and spinner frame is deterministic), an
//! App over it, and a TestBackend render to text.

#![allow(dead_code)]

use mcpscope::protocol::views::InitializeResult;
use mcpscope::trace::{Dir, ManualClock, Store, Trace};
use mcpscope::tui::{App, AppOptions, ui};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use std::sync::Arc;

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

/// Render the whole screen to text (symbols only, one line per row).
pub fn render(app: &mut App, w: u16, h: u16) -> String {
    app.resize(w, h);
    app.sync();
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let trace = app.trace().clone();
    let store = trace.read();
    term.draw(|f| ui::draw(f, &app.state, &store)).unwrap();
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

/// Run the rule engine over everything in the scenario's store, as the live
/// checks would, and return the findings.
pub fn check_all(sc: &Scenario) -> Vec<mcpscope::checks::Finding> {
    let mut checker = mcpscope::checks::Checker::new(mcpscope::checks::CheckConfig::default());
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
    mcpscope::trace::record::read_trace(&path).unwrap().1
}
