//! The header line: server, transport, revision, connection state, calls
//! in flight, findings, event count, recording (or why it stopped).

use crate::trace::Store;
use crate::tui::state::{Conn, Pane, State};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The header line. It reads the store (whether recording failed): the
/// caller holds its lock; drawing it needs none.
pub fn prepare(st: &State, store: &Store) -> Paragraph<'static> {
    let t = &st.theme;
    let base = Style::default().fg(t.header_fg).bg(t.header_bg);
    let sep = || Span::styled(" │ ", base.fg(t.muted));
    let s = &st.server;
    let name = if s.name.is_empty() {
        &s.spec_name
    } else {
        &s.name
    };
    let mut spans = vec![
        Span::styled(" mcpscope ", base.fg(t.accent).add_modifier(Modifier::BOLD)),
        sep(),
        Span::styled(name.clone(), base.add_modifier(Modifier::BOLD)),
    ];
    if !s.version.is_empty() {
        spans.push(Span::styled(format!(" {}", s.version), base));
    }
    spans.push(sep());
    spans.push(Span::styled(s.transport.clone(), base));
    if !s.revision.is_empty() {
        spans.push(sep());
        spans.push(Span::styled(format!("rev {}", s.revision), base));
    }
    spans.push(sep());
    let (label, color) = match &st.conn {
        Conn::Starting => ("◌ connecting…".to_string(), t.warn),
        Conn::Ready => ("● connected".to_string(), t.ok),
        Conn::Failed(e) => (format!("✗ failed: {e}"), t.error),
        Conn::Exited(e) => (format!("✗ {e}"), t.error),
        Conn::Offline => match &st.replay {
            Some(r) => {
                let state = if r.done() {
                    "■ replay ended"
                } else if r.paused {
                    "⏸ replay paused"
                } else {
                    "▶ replaying"
                };
                let color = if r.done() || r.paused { t.warn } else { t.ok };
                (
                    format!(
                        "{state} {} / {} ×{}",
                        crate::format::duration(r.pos_us),
                        crate::format::duration(r.end_us),
                        crate::format::num(r.speed)
                    ),
                    color,
                )
            }
            None => ("◆ recorded trace".to_string(), t.muted),
        },
    };
    spans.push(Span::styled(
        label,
        base.fg(color).add_modifier(Modifier::BOLD),
    ));
    spans.push(sep());
    let running = st.calls.running();
    spans.push(Span::styled(
        format!("{running} in flight"),
        if running > 0 {
            base.fg(t.state_running)
        } else {
            base
        },
    ));
    spans.push(sep());
    let parts = super::findings::count_parts(st.findings.counts);
    if parts.is_empty() {
        spans.push(Span::styled("0 findings", base));
    }
    for (i, (text, sev)) in parts.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", base.fg(t.muted)));
        }
        spans.push(Span::styled(
            text,
            base.fg(super::findings::severity_color(t, sev))
                .add_modifier(Modifier::BOLD),
        ));
    }
    spans.push(sep());
    match &st.replay {
        Some(r) => {
            spans.push(Span::styled(format!("{}/{} events", r.fed, r.total), base));
            if r.cut {
                spans.push(Span::styled(" (trace cut)", base.fg(t.warn)));
            }
        }
        None => spans.push(Span::styled(format!("{} events", st.events), base)),
    }
    if st.evicted > 0 {
        spans.push(Span::styled(
            format!(" ({} evicted)", st.evicted),
            base.fg(t.warn),
        ));
    }
    if let Some(r) = &st.recording {
        spans.push(sep());
        // A write failed (a full disk): the file ends there, and saying
        // "REC" on would be a lie.
        match store.recorder_error() {
            None => spans.push(Span::styled(format!("● REC {r}"), base.fg(t.error))),
            Some(e) => spans.push(Span::styled(
                format!("✗ {}", crate::tui::format::safe(e, 80)),
                base.fg(t.error).add_modifier(Modifier::BOLD),
            )),
        }
    }
    Paragraph::new(Line::from(spans)).style(base)
}

/// Where `draw_tabs` puts each tab: its label, then one space.
pub fn tab_spans(area: Rect, st: &State) -> Vec<(Pane, u16, u16)> {
    let mut x = area.x;
    st.tabs()
        .map(|p| {
            let w = super::tab_label(p).chars().count() as u16 + 1;
            x += w;
            (p, x - w, x)
        })
        .collect()
}

/// The tab bar of the narrow layout.
pub fn draw_tabs(f: &mut Frame, area: Rect, st: &State) {
    let t = &st.theme;
    let mut spans = Vec::new();
    for p in st.tabs() {
        let style = if p == st.focus {
            t.selected().add_modifier(Modifier::BOLD)
        } else {
            t.muted()
        };
        spans.push(Span::styled(super::tab_label(p), style));
        spans.push(Span::raw(" "));
    }
    f.render_widget(Paragraph::new(Line::from(spans)).style(t.base()), area);
}
