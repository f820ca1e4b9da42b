//! No theme draws text in its own background colour. Every built-in theme
//! and every file in `themes/` renders the screens a session shows (each
//! pane focused, its rows selected in turn, every call state, the header's
//! states, the footer, the help overlay, the narrow tabs) at 80×24, 120×30
//! and 160×48 — and the forms (elicitation, a prompt's arguments) and the
//! Resources and Prompts tabs — and every cell with a visible glyph is checked: its
//! foreground must differ from its background, and their WCAG contrast
//! ratio must reach `MIN_TEXT_CONTRAST` (text) or `MIN_MARK_CONTRAST`
//! (borders, gauge tracks and other block or line drawing).
//!
//! A colour left `reset` is the terminal's own, which the theme states it
//! assumes (`[terminal]` in the theme file). Named ANSI colours and the
//! 256-colour indexes are read as xterm's default palette: the one most
//! terminals start from, so a ratio computed on it is what most users see.

use crate::support::*;
use mcpscope::client::ServerAsk;
use mcpscope::protocol::IdKey;
use mcpscope::tui::theme::{BUILTIN, Theme};
use mcpscope::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// WCAG 2 asks 4.5:1 of body text and 3:1 of large text and of the parts
/// of an interface one must see to use it (1.4.3, 1.4.11). Terminal text
/// is small, but the themes deliberately dim secondary text (muted times,
/// hints) below body contrast; 3:1 is the least at which such text still
/// reads, and below it a colour is a legibility bug, not a design choice.
const MIN_TEXT_CONTRAST: f64 = 3.0;
/// Borders and gauge tracks are shapes, not text, and an unfocused border
/// is meant to recede; they must only stay visible.
const MIN_MARK_CONTRAST: f64 = 1.3;

const SIZES: [(u16, u16); 3] = [(80, 24), (120, 30), (160, 48)];

/// xterm's default colours for the 16 ANSI indexes.
const XTERM16: [(u8, u8, u8); 16] = [
    (0x00, 0x00, 0x00),
    (0xcd, 0x00, 0x00),
    (0x00, 0xcd, 0x00),
    (0xcd, 0xcd, 0x00),
    (0x00, 0x00, 0xee),
    (0xcd, 0x00, 0xcd),
    (0x00, 0xcd, 0xcd),
    (0xe5, 0xe5, 0xe5),
    (0x7f, 0x7f, 0x7f),
    (0xff, 0x00, 0x00),
    (0x00, 0xff, 0x00),
    (0xff, 0xff, 0x00),
    (0x5c, 0x5c, 0xff),
    (0xff, 0x00, 0xff),
    (0x00, 0xff, 0xff),
    (0xff, 0xff, 0xff),
];

fn indexed(i: u8) -> (u8, u8, u8) {
    match i {
        0..=15 => XTERM16[i as usize],
        16..=231 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let i = i - 16;
            (level(i / 36), level((i / 6) % 6), level(i % 6))
        }
        _ => {
            let v = 8 + 10 * (i - 232);
            (v, v, v)
        }
    }
}

/// The colour a cell shows, `reset` being the terminal's own (`fallback`).
fn rgb(c: Color, fallback: Color) -> (u8, u8, u8) {
    let named = |i: u8| XTERM16[i as usize];
    match c {
        Color::Reset => rgb(fallback, Color::Black),
        Color::Black => named(0),
        Color::Red => named(1),
        Color::Green => named(2),
        Color::Yellow => named(3),
        Color::Blue => named(4),
        Color::Magenta => named(5),
        Color::Cyan => named(6),
        Color::Gray => named(7),
        Color::DarkGray => named(8),
        Color::LightRed => named(9),
        Color::LightGreen => named(10),
        Color::LightYellow => named(11),
        Color::LightBlue => named(12),
        Color::LightMagenta => named(13),
        Color::LightCyan => named(14),
        Color::White => named(15),
        Color::Indexed(i) => indexed(i),
        Color::Rgb(r, g, b) => (r, g, b),
    }
}

/// WCAG 2 relative luminance of an sRGB colour.
fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let lin = |v: u8| {
        let c = v as f64 / 255.0;
        if c <= 0.03928 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Box drawing, block elements and the like: shapes, not letters.
fn is_mark(s: &str) -> bool {
    s.chars()
        .all(|c| matches!(c as u32, 0x2500..=0x259f | 0x25a0..=0x25ff | 0x2800..=0x28ff))
}

/// Every run of cells of one screen that cannot be read: what it shows in
/// which colours, and where.
fn illegible(theme: &Theme, buf: &Buffer, what: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let area = buf.area;
    for y in 0..area.height {
        let mut x = 0;
        while x < area.width {
            let cell = &buf[(x, y)];
            let sym = cell.symbol();
            if sym.trim().is_empty() {
                x += 1;
                continue;
            }
            let (mut fg, mut bg) = (
                rgb(cell.fg, theme.terminal_fg),
                rgb(cell.bg, theme.terminal_bg),
            );
            if cell.modifier.contains(Modifier::REVERSED) {
                std::mem::swap(&mut fg, &mut bg);
            }
            let mark = is_mark(sym);
            let min = if mark {
                MIN_MARK_CONTRAST
            } else {
                MIN_TEXT_CONTRAST
            };
            let ratio = contrast(fg, bg);
            if fg == bg || ratio < min {
                // The run of cells sharing these colours, to name the text.
                let mut text = String::new();
                let start = x;
                while x < area.width {
                    let c = &buf[(x, y)];
                    if c.fg != cell.fg || c.bg != cell.bg || c.modifier != cell.modifier {
                        break;
                    }
                    text.push_str(c.symbol());
                    x += 1;
                }
                out.push((
                    format!(
                        "{}: {:?} fg {:?}={} on bg {:?}={} contrast {ratio:.2} < {min}",
                        theme.name,
                        text.trim_end(),
                        cell.fg,
                        hex(fg),
                        cell.bg,
                        hex(bg),
                    ),
                    format!("{what} at ({start},{y})"),
                ));
                continue;
            }
            x += 1;
        }
    }
    out
}

fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn themed_app(sc: &Scenario, theme: &Theme, http: bool) -> App {
    let mut opts = AppOptions {
        theme: theme.clone(),
        ..AppOptions::default()
    };
    if http {
        opts.transport = "streamable-http".into();
        opts.server_cli = "--url http://127.0.0.1:8181/mcp".into();
        opts.spec_name = "http://127.0.0.1:8181/mcp".into();
    }
    let mut app = App::new(sc.trace.clone(), opts);
    app.set_server(&init_result());
    app.on_msg(Msg::Handshake(Ok(init_result())));
    let mut tools = tools();
    tools.push(json!({"name": "research", "title": "Research a topic",
        "description": "Runs as a task.", "execution": {"taskSupport": "required"},
        "inputSchema": {"type": "object", "properties": {"topic": {"type": "string"}}}}));
    app.on_msg(Msg::Tools(Ok(tools)));
    app.sync();
    app
}

fn draw(app: &mut App, w: u16, h: u16) -> Buffer {
    app.resize(w, h);
    app.sync();
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let trace = app.trace().clone();
    let store = trace.read();
    term.draw(|f| ui::draw(f, &app.view(), &store)).unwrap();
    term.backend().buffer().clone()
}

/// Every call state at once: the mid-progress session (running with and
/// without a total, done, cancelled) plus a failed call, a timed-out one,
/// a task, and a server request waiting for the user's answer; findings.
fn every_state() -> Scenario {
    let sc = with_faults();
    sc.at_ms(1310)
        .call(6, "echo", json!({"text": "boom"}), None);
    sc.at_ms(1320).result(6, "boom", true);
    sc.at_ms(1330)
        .call(7, "sleep", json!({"ms": 10}), Some(json!("mcpscope-7")));
    sc.at_ms(1340).meta(json!({"event": "timeout", "request": 7, "method": "tools/call", "limit": "idle", "secs": 1}));
    sc.at_ms(1340).out(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "timed out (idle timeout of 1s)"}}));
    sc.at_ms(1350).out(
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "name": "research", "arguments": {"topic": "rust"}, "task": {},
        "_meta": {"progressToken": "mcpscope-8"}}}),
    );
    sc.at_ms(1360).inn(json!({"jsonrpc": "2.0", "id": 8, "result": {"task": {
        "taskId": "7f3a9c2e", "status": "working", "pollInterval": 1000,
        "createdAt": "2026-12-01T10:00:00Z", "lastUpdatedAt": "2026-12-01T10:00:01Z", "ttl": 300000}}}));
    sc.at_ms(1370)
        .progress(json!("mcpscope-8"), 1.0, Some(4.0), "stage 1 of 4");
    sc.at_ms(1400);
    sc
}

fn ask(app: &mut App, sc: &Scenario) {
    let params = json!({"message": "Project name?", "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "title": "Name", "default": "demo"}}}});
    let raw =
        json!({"jsonrpc": "2.0", "id": "srv-1", "method": "elicitation/create", "params": params})
            .to_string();
    let seq = sc.raw_in(raw.as_bytes());
    app.on_msg(Msg::ServerAsk(ServerAsk {
        id: IdKey::Str("srv-1".into()),
        seq,
        method: "elicitation/create".into(),
        params,
        raw,
    }));
    app.sync();
}

/// Each distinct failure (theme, glyphs, colours), with the first screen
/// and cell it was seen at and how often.
type Failures = std::collections::BTreeMap<String, (String, usize)>;

const FOCUS: [Action; 9] = [
    Action::FocusProgress,
    Action::FocusTimeline,
    Action::FocusLogs,
    Action::FocusRaw,
    Action::FocusTools,
    Action::FocusComposer,
    Action::FocusFindings,
    Action::FocusNetwork,
    Action::FocusScope,
];

/// Render every screen of one app at every size; the failures found.
fn sweep(theme: &Theme, mut app: App, label: &str, rows: usize, out: &mut Failures) {
    for (w, h) in SIZES {
        let mut check = |app: &mut App, what: &str| {
            let buf = draw(app, w, h);
            for (problem, place) in illegible(theme, &buf, &format!("{w}x{h} {label} {what}")) {
                let seen = out.entry(problem).or_insert((place, 0));
                seen.1 += 1;
            }
        };
        for focus in FOCUS {
            app.apply(focus);
            app.apply(Action::Top);
            check(&mut app, &format!("{focus:?} row 0"));
            for row in 1..rows {
                app.apply(Action::Down);
                check(&mut app, &format!("{focus:?} row {row}"));
            }
            app.apply(Action::Zoom);
            check(&mut app, &format!("{focus:?} zoomed"));
            app.apply(Action::Zoom);
        }
        app.apply(Action::FocusProgress);
        app.apply(Action::Details);
        check(&mut app, "progress details");
        app.apply(Action::Details);
        app.apply(Action::Help);
        check(&mut app, "help");
        app.apply(Action::Help);
    }
}

fn themes() -> Vec<Theme> {
    let mut all: Vec<Theme> = BUILTIN
        .iter()
        .map(|(name, _)| Theme::builtin(name).expect("a built-in theme parses"))
        .collect();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/themes");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(&path).unwrap();
            let t = Theme::parse(&text, &path.display().to_string()).unwrap();
            if !all.contains(&t) {
                all.push(t);
            }
        }
    }
    all
}

/// Fail listing every distinct illegible text, with where it was first seen.
fn assert_legible(failures: &Failures) {
    let report: Vec<String> = failures
        .iter()
        .map(|(problem, (first, n))| format!("{problem}\n    first at {first} (seen {n} times)"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} illegible texts (theme: glyphs, colours; first place seen):\n{}",
        failures.len(),
        report.join("\n")
    );
}

#[test]
fn every_theme_keeps_every_cell_legible() {
    let mut failures = Failures::new();
    for theme in themes() {
        let sc = every_state();
        let mut app = themed_app(&sc, &theme, false);
        app.add_findings(check_all(&sc));
        ask(&mut app, &sc);
        sweep(&theme, app, "session", 10, &mut failures);

        // Nothing in flight, not connected yet: the header's other states.
        let idle = Scenario::new();
        let app = App::new(
            idle.trace.clone(),
            AppOptions {
                theme: theme.clone(),
                ..AppOptions::default()
            },
        );
        sweep(&theme, app, "connecting", 1, &mut failures);

        let http = http_session();
        let app = themed_app(&http, &theme, true);
        sweep(&theme, app, "http", 6, &mut failures);
    }
    assert_legible(&failures);
}

#[test]
fn the_contrast_measure_is_wcags() {
    assert!((contrast((0, 0, 0), (255, 255, 255)) - 21.0).abs() < 1e-9);
    assert!((contrast((0x77, 0x77, 0x77), (255, 255, 255)) - 4.48).abs() < 0.01);
    assert_eq!(indexed(196), (255, 0, 0));
    assert_eq!(indexed(244), (128, 128, 128));
}

/// A session whose server offers resources and prompts: the Browse tabs.
fn browse_app(sc: &Scenario, theme: &Theme) -> App {
    let init: mcpscope::protocol::views::InitializeResult = serde_json::from_value(json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}, "resources": {"subscribe": true, "listChanged": true},
                         "prompts": {"listChanged": true}, "completions": {}},
        "serverInfo": {"name": "everything", "version": "2.0.0"}}))
    .unwrap();
    let mut app = App::new(
        sc.trace.clone(),
        AppOptions {
            theme: theme.clone(),
            ..AppOptions::default()
        },
    );
    app.set_server(&init);
    app.on_msg(Msg::Handshake(Ok(init)));
    app.on_msg(Msg::Tools(Ok(tools())));
    app.sync();
    app
}

#[test]
fn every_theme_keeps_forms_and_the_browse_tabs_legible() {
    use mcpscope::tui::browse::Req;
    let mut failures = Failures::new();
    for theme in themes() {
        for (w, h) in SIZES {
            let mut check = |app: &mut App, what: &str| {
                let buf = draw(app, w, h);
                let label = format!("{w}x{h} {what}");
                for (problem, place) in illegible(&theme, &buf, &label) {
                    failures.entry(problem).or_insert((place, 0)).1 += 1;
                }
            };
            // The elicitation form, its first field and then the next.
            let sc = every_state();
            let mut app = themed_app(&sc, &theme, false);
            ask(&mut app, &sc);
            app.apply(Action::AnswerServer);
            assert!(app.overlays.asks.open, "the form is open");
            check(&mut app, "elicitation form");
            key(&mut app, KeyCode::Tab);
            check(&mut app, "elicitation form, next field");

            // Resources (a subscribed one, a template) and Prompts, each
            // row selected, and a prompt's argument form.
            let sc = Scenario::new();
            let mut app = browse_app(&sc, &theme);
            app.apply(Action::FocusTools);
            app.apply(Action::NextTab);
            app.on_msg(Msg::Browse(
                Req::ListResources,
                Ok(json!({"resources": [
                    {"uri": "demo://resource/static/document/architecture.md", "name": "architecture.md",
                     "description": "How the server is built"},
                    {"uri": "demo://resource/static/document/features.md", "name": "features.md"}]})),
            ));
            app.on_msg(Msg::Browse(
                Req::ListTemplates,
                Ok(json!({"resourceTemplates": [
                    {"uriTemplate": "demo://resource/dynamic/text/{id}", "name": "Dynamic Text",
                     "description": "Made from {id}"}]})),
            ));
            assert_eq!(app.panes.tools.browse.resources.len(), 3);
            for row in 0..3 {
                check(&mut app, &format!("resources row {row}"));
                app.apply(Action::Down);
            }
            app.apply(Action::NextTab);
            app.on_msg(Msg::Browse(
                Req::ListPrompts,
                Ok(json!({"prompts": [
                    {"name": "simple-prompt", "title": "Simple Prompt", "description": "No arguments"},
                    {"name": "team", "title": "Team Management", "description": "Two arguments",
                     "arguments": [{"name": "department", "required": true},
                                   {"name": "name", "description": "Lead"}]}]})),
            ));
            check(&mut app, "prompts row 0");
            app.apply(Action::Down);
            check(&mut app, "prompts row 1");
            app.apply(Action::Open);
            assert!(app.overlays.argform.is_some(), "the argument form is open");
            check(&mut app, "prompt argument form");
        }
    }
    assert_legible(&failures);
}
