//! Network: one row per HTTP exchange — channel, method, status (coloured
//! by class), content type, time to headers, session, the JSON-RPC message
//! the channel carried, frames received and what happened to the stream
//! (priming, resumption, cut, end). Only the rows on screen are formatted;
//! the selected exchange is spelled out in full on the last rows.

use crate::calls::exchanges::{Exchange, HttpStatus};
use crate::tui::action::Action;
use crate::tui::chrome::{block, fit, full_width, inner};
use crate::tui::keymap::Context;
use crate::tui::layout::network_list_height;
use crate::tui::pane::Pane;
use crate::tui::screen::View;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// 2xx fine, 3xx unusual, 4xx the client's problem, 5xx and no answer at all the server's.
pub fn status_color(t: &Theme, s: &HttpStatus) -> Color {
    match s {
        HttpStatus::Code(c) if (200..300).contains(c) => t.ok,
        HttpStatus::Code(c) if (300..400).contains(c) => t.accent,
        HttpStatus::Code(c) if (400..500).contains(c) => t.warn,
        _ => t.error,
    }
}

/// Column widths for a pane `w` columns wide: the message and the stream
/// events share what the fixed columns leave.
struct Cols {
    session: usize,
    rpc: usize,
}

impl Cols {
    /// Channel 8, method 6, status 3, type 4, ms 6, frames 3, and the gaps.
    const FIXED: usize = 8 + 6 + 3 + 4 + 6 + 3 + 7;

    fn new(w: usize) -> Cols {
        let session = if w >= 110 { 14 } else { 7 };
        let room = w.saturating_sub(Cols::FIXED + session + 1);
        Cols {
            session,
            rpc: (room * 9 / 20).clamp(8, 34),
        }
    }
}

fn ms(x: &Exchange) -> String {
    x.ms.map_or_else(|| "—".into(), |m| format!("{m}ms"))
}

fn row<'a>(x: &Exchange, st: &View, c: &Cols) -> Line<'a> {
    let t = &st.shell.theme;
    let session = x
        .session
        .as_deref()
        .map_or_else(|| "—".into(), |s| short_session(s, c.session));
    let fg = Style::default().fg(t.fg);
    Line::from(vec![
        Span::styled(format!(" {} ", fit(&x.channel, 8)), t.fg(t.accent)),
        Span::styled(format!("{} ", fit(&x.method, 6)), fg),
        Span::styled(
            format!("{:>3} ", x.status.label()),
            Style::default()
                .fg(status_color(t, &x.status))
                .add_modifier(Modifier::BOLD),
        ),
        Span::styled(format!("{} ", fit(&x.content_type, 4)), t.muted()),
        Span::styled(format!("{:>6} ", ms(x)), t.muted()),
        Span::styled(format!("{} ", fit(&session, c.session)), t.muted()),
        Span::styled(format!("{} ", fit(&x.rpc, c.rpc)), fg),
        Span::styled(format!("{:>3} ", x.frames), fg),
        Span::styled(x.stream_events().join(" · "), events_style(st, x)),
    ])
}

fn events_style(st: &View, x: &Exchange) -> Style {
    let t = &st.shell.theme;
    if x.failed.is_some() || x.cut || x.expired {
        Style::default().fg(t.warn)
    } else {
        t.muted()
    }
}

/// The selected exchange in full: the list cuts every column.
fn detail(x: &Exchange, w: usize, st: &View) -> Vec<Line<'static>> {
    let t = &st.shell.theme;
    let mut text = format!(
        "{} {} {} {} · {} · ",
        x.channel,
        x.method,
        match &x.status {
            HttpStatus::Code(c) => c.to_string(),
            HttpStatus::Error(e) => format!("no response ({e})"),
        },
        x.content_type,
        ms(x),
    );
    if let Some(s) = &x.session {
        text.push_str(&format!("session {s} · "));
    }
    text.push_str(&format!(
        "{} · {} frame{} · event #{}",
        x.rpc,
        x.frames,
        if x.frames == 1 { "" } else { "s" },
        x.seq
    ));
    let ev = x.stream_events();
    if !ev.is_empty() {
        text.push_str(&format!(" · {}", ev.join(" · ")));
    }
    let chars: Vec<char> = text.chars().collect();
    let width = w.saturating_sub(1).max(1);
    let mut chunks = chars.chunks(width);
    let first: String = chunks.next().unwrap_or_default().iter().collect();
    let mut out = vec![Line::from(vec![
        Span::styled("▸", t.fg(status_color(t, &x.status))),
        Span::styled(first, Style::default().fg(t.fg)),
    ])];
    if let Some(rest) = chunks.next() {
        let mut rest: String = rest.iter().collect();
        if chunks.next().is_some() {
            rest.pop();
            rest.push('…');
        }
        out.push(Line::styled(
            format!(" {}", fit(&rest, width)),
            Style::default().fg(t.fg),
        ));
    }
    out
}

/// The exchanges listed (`start..end`) in a pane of `inner` rows.
fn window(st: &View, inner_h: u16) -> (usize, usize, usize) {
    let nw = &st.panes.network;
    let len = nw.view.len();
    let rows = network_list_height(inner_h) as usize;
    let start = nw.cursor.window(len, rows);
    (start, (start + rows).min(len), rows)
}

/// Which exchange each drawn row shows: below the column header; the
/// footer names none.
pub fn rows(area: Rect, st: &View) -> Vec<(u16, usize)> {
    let inner = inner(area);
    if st.panes.network.view.is_empty() {
        return Vec::new();
    }
    let (start, end, _) = window(st, inner.height);
    crate::tui::ui::hits::uniform(inner.y + 1, start, end, 1)
}

pub fn draw(f: &mut Frame, area: Rect, st: &View) {
    let t = &st.shell.theme;
    let nw = &st.panes.network;
    let len = nw.view.len();
    let enter = st
        .shell
        .keymap
        .keys_for(
            Context::Pane(crate::tui::pane::Pane::Network),
            Action::ShowChannel,
        )
        .first()
        .map(|k| format!(" · {k}: stream in timeline"))
        .unwrap_or_default();
    let info = if len == 0 {
        "· no HTTP exchanges".to_string()
    } else {
        format!(
            "· {len} exchange{}{enter} · {}",
            if len == 1 { "" } else { "s" },
            if nw.follow {
                "following"
            } else {
                "paused (f follows)"
            }
        )
    };
    f.render_widget(block(st, Pane::Network, info), area);
    let inner = inner(area);
    let w = inner.width as usize;
    if len == 0 {
        let text = if st.shell.server.transport.contains("http") {
            " No HTTP exchange yet: each POST, GET and DELETE shows here with its status and stream."
        } else {
            " This session does not speak HTTP (stdio): there are no HTTP exchanges to show. Connect with --url to see them."
        };
        f.render_widget(
            Paragraph::new(Line::styled(text, t.muted())).style(t.base()),
            inner,
        );
        return;
    }
    let cols = Cols::new(w);
    let mut lines = vec![Line::styled(
        fit(
            &format!(
                " {:<8} {:<6} {:>3} {:<4} {:>6} {:<sw$} {:<rw$} {:>3} stream",
                "channel",
                "method",
                "st",
                "type",
                "time",
                "session",
                "message",
                "fr",
                sw = cols.session,
                rw = cols.rpc
            ),
            w,
        ),
        t.muted().add_modifier(Modifier::BOLD),
    )];
    let (start, end, rows) = window(st, inner.height);
    for i in start..end {
        let Some(x) = nw.view.rows.get(i) else { break };
        let line = row(x, st, &cols);
        lines.push(if i == nw.cursor.selected {
            full_width(line, w, t.selected())
        } else {
            line
        });
    }
    if let Some(x) = nw.view.rows.get(nw.cursor.selected)
        && (inner.height as usize) > rows + 1
    {
        while lines.len() < rows + 1 {
            lines.push(Line::raw(""));
        }
        lines.extend(detail(x, w, st));
    }
    f.render_widget(Paragraph::new(lines).style(t.base()), inner);
}

impl crate::tui::screen::PaneView for super::NetworkState {
    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        draw(f, area, v);
    }

    fn rows(&self, area: Rect, v: &View) -> Vec<(u16, usize)> {
        rows(area, v)
    }

    fn list_rows(&self, inner: u16) -> usize {
        crate::tui::layout::network_list_height(inner) as usize
    }

    /// Once the session made an HTTP exchange, or while focused (its key
    /// always works and says when there is nothing to show).
    fn offered(&self, v: &View) -> bool {
        v.shows_channels() || v.shell.focus == Pane::Network
    }
}

/// A session id cut to its first characters (they differ between sessions).
fn short_session(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(w.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}
