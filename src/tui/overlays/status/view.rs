//! The status line: the text field being typed, a notice, and the keys that
//! matter in the focused pane (read from the key map, so rebinding shows).

use crate::tui::action::Action;
use crate::tui::keymap::{self, Context, REPLAY_HINTS};
use crate::tui::pane::Pane;
use crate::tui::screen::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

fn short(a: Action) -> &'static str {
    use Action::*;
    match a {
        Quit => "quit",
        Help => "help",
        FocusNext => "next pane",
        Zoom => "zoom",
        UseTool => "use tool",
        Filter => "filter",
        Up => "up",
        Down => "down",
        Edit => "edit",
        Send => "send",
        CycleToken => "token",
        CycleLogLevel => "level",
        IdleUp => "timeout",
        ToggleRawMode => "raw",
        CopyCommand => "copy cmd",
        StopEdit => "stop editing",
        CancelCall => "cancel",
        ShowLane => "lane",
        CycleByteMode => "units",
        ClearFinished => "clear done",
        Follow => "follow",
        CycleKind => "kind",
        ClearLane => "all events",
        LevelUp => "level+",
        LevelDown => "level-",
        ToggleStderr => "stderr",
        Expand => "expand",
        ToggleBytes => "bytes",
        Search => "search",
        NextMatch => "next",
        Copy => "copy",
        ShowFrame => "show frame",
        Details => "details",
        AnswerInput => "answer input",
        ShowChannel => "stream in timeline",
        ReplayPause => "pause",
        ReplayStep => "step",
        ReplayBack => "back",
        ReplayFaster => "faster",
        ReplaySlower => "slower",
        ReplayEnd => "end",
        NextTab => "next tab",
        Open => "open",
        Subscribe => "(un)subscribe",
        Refresh => "refresh",
        ZoomIn => "zoom in",
        ZoomOut => "zoom out",
        ZoomFit => "fit",
        PanLeft => "earlier",
        PanRight => "later",
        CursorLeft => "cursor",
        CursorRight => "cursor",
        PrevEvent => "prev event",
        NextEvent => "next event",
        ShowEvent => "show event",
        ToggleStreams => "streams",
        Restart => "restart",
        Intercept => "intercept",
        SetBreakpoint => "breakpoint",
        ForwardHeld => "forward",
        EditHeld => "edit",
        DropHeld => "drop",
        Forge => "forge",
        ForgeSide => "other side",
        _ => "",
    }
}

fn push_key(
    spans: &mut Vec<Span<'static>>,
    st: &View,
    a: Action,
    label: &str,
    key: Style,
    base: Style,
) {
    if let Some(k) = st.shell.keymap.keys_for(Context::Global, a).first() {
        spans.push(Span::styled(format!(" {k}"), key));
        spans.push(Span::styled(format!(" {label}"), base));
    }
}

/// `attach --intercept`, always in sight: how many messages are held and
/// for how long (their peers' clocks keep running), and the breakpoint.
fn intercept_indicator(
    spans: &mut Vec<Span<'static>>,
    st: &View,
    ic: &crate::tui::overlays::intercept::Intercept,
    key: Style,
    base: Style,
) {
    let t = &st.shell.theme;
    let strong = base.fg(t.accent).add_modifier(Modifier::BOLD);
    if ic.lost.is_some() {
        spans.push(Span::styled(" ⏸ intercept disconnected", base.fg(t.warn)));
        spans.push(Span::styled(" │", base.fg(t.muted)));
        return;
    }
    let held = match ic.oldest_us(st.shell.now_us) {
        Some(us) => format!(
            " ⏸ {} held (oldest {})",
            ic.held.len(),
            crate::tui::overlays::intercept::view::age(us)
        ),
        None => " ⏸ 0 held".to_string(),
    };
    spans.push(Span::styled(held, strong));
    let brk = match &ic.filter {
        Some(f) => format!(
            " break: {}",
            // Cut, not padded: the notice and the keys follow.
            crate::tui::format::clip(crate::tui::format::safe_row(f), 28)
        ),
        None => " no breakpoint".to_string(),
    };
    spans.push(Span::styled(brk, base));
    if !ic.open {
        push_key(spans, st, Action::Intercept, "intercept", key, base);
    }
    spans.push(Span::styled(" │", base.fg(t.muted)));
}

/// Append the hint groups that fit in `width` columns after `spans`:
/// `last` (help, quit) is kept when anything is, the others in order until
/// one does not fit. A hint is never cut.
fn fit_groups(
    spans: &mut Vec<Span<'static>>,
    hints: Vec<Vec<Span<'static>>>,
    last: Vec<Vec<Span<'static>>>,
    width: usize,
) {
    let w = |g: &[Span]| g.iter().map(|s| s.width()).sum::<usize>();
    let mut used = w(spans);
    let tail: usize = last.iter().map(|g| w(g)).sum();
    let reserve = if used + tail <= width { tail } else { 0 };
    for g in hints {
        if used + w(&g) + reserve > width {
            break;
        }
        used += w(&g);
        spans.extend(g);
    }
    for g in last {
        if used + w(&g) > width {
            break;
        }
        used += w(&g);
        spans.extend(g);
    }
}

pub fn draw(f: &mut Frame, area: Rect, st: &View) {
    let t = &st.shell.theme;
    let base = Style::default().fg(t.status_fg).bg(t.status_bg);
    let key = base.fg(t.key).add_modifier(Modifier::BOLD);
    if let Some(inp) = &st.overlays.input {
        let line = Line::from(vec![
            Span::styled(format!(" {}: ", inp.target.prompt()), key),
            Span::styled(inp.text.clone(), base),
            Span::styled("█", base.fg(t.accent)),
            Span::styled("   Enter keep · Esc cancel", base.fg(t.muted)),
        ]);
        f.render_widget(Paragraph::new(line).style(base), area);
        return;
    }
    let mut spans = Vec::new();
    if let Some(first) = st.overlays.asks.waiting.first() {
        let age = st.shell.now_us.saturating_sub(first.arrived_us) / 1_000_000;
        spans.push(Span::styled(
            format!(
                " ⚑ {} waiting ({} {age}s)",
                st.overlays.asks.waiting.len(),
                first.method
            ),
            base.fg(t.accent).add_modifier(Modifier::BOLD),
        ));
        push_key(&mut spans, st, Action::AnswerServer, "answer", key, base);
        spans.push(Span::styled(" │", base.fg(t.muted)));
    }
    if let Some(ic) = &st.overlays.intercept {
        intercept_indicator(&mut spans, st, ic, key, base);
    }
    // A dead session's way on, before the notice (which may be long: the
    // connection's error).
    if st.shell.live && st.shell.conn.ended() {
        push_key(&mut spans, st, Action::Restart, "restart", key, base);
        spans.push(Span::styled(" │", base.fg(t.muted)));
    }
    if let Some(n) = &st.shell.notice {
        // The notice comes first; it is cut at a word, never inside one.
        let used: usize = spans.iter().map(|s| s.width()).sum();
        let room = (area.width as usize).saturating_sub(used + 3);
        let n = crate::tui::chrome::fit_words(n, room);
        spans.push(Span::styled(
            format!(" {n} "),
            base.fg(t.warn).add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::styled("│", base.fg(t.muted)));
    }
    let ctx = if let Some(ic) = st.overlays.intercept.as_ref().filter(|i| i.open) {
        if ic.editor.is_some() {
            Context::Editor
        } else {
            Context::Intercept
        }
    } else if st.shell.focus == Pane::Composer && st.panes.composer.editing {
        Context::Editor
    } else {
        st.key_context()
    };
    // Each hint is a group of its own, kept or dropped whole.
    let mut hints: Vec<Vec<Span<'static>>> = Vec::new();
    let push = |hints: &mut Vec<Vec<Span<'static>>>, c: Context, a: Action| {
        if let Some(k) = st.shell.keymap.keys_for(c, a).first() {
            hints.push(vec![
                Span::styled(format!(" {k}"), key),
                Span::styled(format!(" {}", short(a)), base),
            ]);
        }
    };
    if let Some(r) = &st.shell.replay {
        let mut pos = format!(
            " {}/{} ×{}",
            crate::format::thousands(r.fed as u64),
            crate::format::thousands(r.total as u64),
            crate::format::num(r.speed)
        );
        if r.paused && !r.done() {
            pos.push_str(" paused");
        }
        spans.push(Span::styled(
            pos,
            base.fg(t.accent).add_modifier(Modifier::BOLD),
        ));
        for a in REPLAY_HINTS {
            push(&mut hints, Context::Global, *a);
        }
        hints.push(vec![Span::styled(" │", base.fg(t.muted))]);
    }
    // "answer input" only matters for a call waiting for input.
    let waiting = st
        .panes
        .progress
        .selected_call()
        .is_some_and(|c| c.input.is_some());
    for a in keymap::hints(ctx) {
        if *a == Action::AnswerInput && !waiting {
            continue;
        }
        // A recorded trace has no server to cancel or send to.
        if !st.shell.live && a.needs_server() {
            continue;
        }
        push(&mut hints, ctx, *a);
    }
    // Help and quit are kept whatever else goes.
    let mut last: Vec<Vec<Span<'static>>> = Vec::new();
    if ctx != Context::Editor {
        for a in [Action::FocusNext, Action::Zoom] {
            push(&mut hints, Context::Global, a);
        }
        for a in [Action::Help, Action::Quit] {
            push(&mut last, Context::Global, a);
        }
    }
    fit_groups(&mut spans, hints, last, area.width as usize);
    f.render_widget(Paragraph::new(Line::from(spans)).style(base), area);
}
