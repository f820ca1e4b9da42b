//! The header line: server, transport, revision, connection state, calls
//! in flight, findings, event count, recording (or why it stopped).

use crate::trace::Store;
use crate::tui::format::count;
use crate::tui::pane::Pane;
use crate::tui::screen::View;
use crate::tui::shell::Conn;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

/// One part of the header. When the line is wider than the terminal,
/// parts go in `drop` order (lowest first; `None`: never) and then the
/// `shrink` parts are cut, so what is left is whole words, not a line cut
/// mid-word with the findings count past the edge.
struct Part {
    spans: Vec<Span<'static>>,
    drop: Option<u8>,
    /// Joined to the part before without a separator (the server version).
    glued: bool,
    /// May be cut with an ellipsis (long names, error texts, file paths).
    shrink: bool,
    /// A leading label that goes at this rank (in the drop order) while
    /// the rest of the part stays: (rank, spans it takes).
    label: Option<(u8, usize)>,
}

impl Part {
    fn new(spans: Vec<Span<'static>>) -> Part {
        Part {
            spans,
            drop: None,
            glued: false,
            shrink: false,
            label: None,
        }
    }
    fn label_drops_at(mut self, rank: u8, spans: usize) -> Part {
        self.label = Some((rank, spans));
        self
    }
    fn drop_at(mut self, rank: u8) -> Part {
        self.drop = Some(rank);
        self
    }
    fn glued(mut self) -> Part {
        self.glued = true;
        self
    }
    fn shrinks(mut self) -> Part {
        self.shrink = true;
        self
    }
    fn width(&self) -> usize {
        self.spans.iter().map(Span::width).sum()
    }
}

/// Drop order, least useful first: the server's version, the program's own
/// name (the user knows what they ran), the revision, the transport, the
/// event count, the `findings:` label of a count split by party, the calls
/// in flight. The server's name, the connection state, the findings count
/// and the recording state always stay.
const DROP_VERSION: u8 = 0;
const DROP_BRAND: u8 = 1;
const DROP_REVISION: u8 = 2;
const DROP_TRANSPORT: u8 = 3;
const DROP_EVENTS: u8 = 4;
const DROP_FINDINGS_LABEL: u8 = 5;
const DROP_IN_FLIGHT: u8 = 6;
/// A cut part keeps at least this many characters (and the ellipsis).
const MIN_SHRUNK: usize = 6;

/// The header line, fitted to `width` columns. It reads the store
/// (whether recording failed): the caller holds its lock; drawing it
/// needs none.
pub fn prepare(st: &View, store: &Store, width: u16) -> Paragraph<'static> {
    let t = &st.shell.theme;
    let base = Style::default().fg(t.header_fg).bg(t.header_bg);
    let s = &st.shell.server;
    let name = if s.name.is_empty() {
        &s.spec_name
    } else {
        &s.name
    };
    let mut parts = vec![
        Part::new(vec![Span::styled(
            " mcpscope ",
            base.fg(t.accent).add_modifier(Modifier::BOLD),
        )])
        .drop_at(DROP_BRAND),
        Part::new(vec![Span::styled(
            name.clone(),
            base.add_modifier(Modifier::BOLD),
        )])
        .shrinks(),
    ];
    if !s.version.is_empty() {
        parts.push(
            Part::new(vec![Span::styled(format!(" {}", s.version), base)])
                .glued()
                .drop_at(DROP_VERSION),
        );
    }
    parts.push(Part::new(vec![Span::styled(s.transport.clone(), base)]).drop_at(DROP_TRANSPORT));
    if !s.revision.is_empty() {
        parts.push(
            Part::new(vec![Span::styled(revision_label(&s.revision), base)]).drop_at(DROP_REVISION),
        );
    }
    parts.push(conn_part(st, base));
    if let Some(a) = &st.panes.network.view.auth {
        let color = match a.state.as_str() {
            "authorized" | "refreshed" => t.ok,
            "failed" | "refresh-failed" => t.error,
            _ => t.warn,
        };
        parts.push(
            Part::new(vec![Span::styled(
                format!("⚿ {}", a.label()),
                base.fg(color),
            )])
            .shrinks(),
        );
    }
    let running = st.panes.progress.calls.running();
    parts.push(
        Part::new(vec![Span::styled(
            format!("{running} in flight"),
            if running > 0 {
                base.fg(t.state_running)
            } else {
                base
            },
        )])
        .drop_at(DROP_IN_FLIGHT),
    );
    parts.push(findings_part(st, base));
    parts.push(events_part(st, base));
    if let Some(r) = &st.shell.recording {
        // A write failed (a full disk): the file ends there, and saying
        // "REC" on would be a lie.
        let span = match store.recorder_error() {
            None => Span::styled(format!("● REC {r}"), base.fg(t.error)),
            Some(e) => Span::styled(
                format!("✗ {}", crate::tui::format::safe(e, 80)),
                base.fg(t.error).add_modifier(Modifier::BOLD),
            ),
        };
        parts.push(Part::new(vec![span]).shrinks());
    }
    fit(&mut parts, width as usize);
    let sep = Span::styled(" │ ", base.fg(t.muted));
    let mut spans = Vec::new();
    for (i, p) in parts.into_iter().enumerate() {
        if i == 0 && p.drop != Some(DROP_BRAND) {
            // The brand carries the line's leading space; without it, keep one.
            spans.push(Span::styled(" ", base));
        }
        if i > 0 && !p.glued {
            spans.push(sep.clone());
        }
        spans.extend(p.spans);
    }
    Paragraph::new(Line::from(spans)).style(base)
}

/// The connection's state (or the replay's, or read-only for `attach`).
fn conn_part(st: &View, base: Style) -> Part {
    let t = &st.shell.theme;
    let (label, color) = match &st.shell.conn {
        Conn::Starting => ("◌ connecting…".to_string(), t.warn),
        Conn::Ready => ("● connected".to_string(), t.ok),
        Conn::Failed(e) => (format!("✗ failed: {e}"), t.error),
        Conn::Exited(e) => (format!("✗ {e}"), t.error),
        Conn::Offline => match &st.shell.replay {
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
            // `attach --intercept`: the session is followed, and what its
            // breakpoint holds is the user's to send on.
            None if st.overlays.intercept.is_some() => ("◆ intercepting".to_string(), t.accent),
            // No playback: a live session followed read-only (`attach`).
            None => ("◆ read-only".to_string(), t.muted),
        },
    };
    Part::new(vec![Span::styled(
        label,
        base.fg(color).add_modifier(Modifier::BOLD),
    )])
    .shrinks()
}

/// The findings' counts, by severity (or by party once the host has some).
fn findings_part(st: &View, base: Style) -> Part {
    let t = &st.shell.theme;
    let mut findings = Vec::new();
    let counts = crate::tui::panes::findings::view::count_parts(st.panes.findings.counts);
    let by_party = st.panes.findings.parties;
    if by_party.client.total() > 0 {
        // Findings about the host too: say which side each count judges,
        // each in the colour of its worst finding.
        let party = |label: &str, c: crate::checks::SeverityCounts| {
            let style = match c.worst() {
                Some(sev) => base
                    .fg(crate::tui::panes::findings::view::severity_color(t, sev))
                    .add_modifier(Modifier::BOLD),
                None => base,
            };
            Span::styled(format!("{label} {}", c.total()), style)
        };
        findings.push(Span::styled("findings: ", base));
        findings.push(party("server", by_party.server));
        findings.push(Span::styled(" · ", base.fg(t.muted)));
        findings.push(party("host", by_party.client));
    } else if counts.is_empty() {
        findings.push(Span::styled("0 findings", base));
    } else {
        for (i, (text, sev)) in counts.into_iter().enumerate() {
            if i > 0 {
                findings.push(Span::styled(" · ", base.fg(t.muted)));
            }
            findings.push(Span::styled(
                text,
                base.fg(crate::tui::panes::findings::view::severity_color(t, sev))
                    .add_modifier(Modifier::BOLD),
            ));
        }
    }
    let mut part = Part::new(findings);
    if by_party.client.total() > 0 {
        // The `findings: ` span.
        part = part.label_drops_at(DROP_FINDINGS_LABEL, 1);
    }
    part
}

/// The events taken in (of the trace's, in a replay), and those evicted.
fn events_part(st: &View, base: Style) -> Part {
    let t = &st.shell.theme;
    let mut events = Vec::new();
    match &st.shell.replay {
        Some(r) => {
            events.push(Span::styled(
                format!(
                    "{}/{}",
                    crate::format::thousands(r.fed as u64),
                    count(r.total as u64, "event", "events")
                ),
                base,
            ));
            if r.cut {
                events.push(Span::styled(" (trace cut)", base.fg(t.warn)));
            }
        }
        None => events.push(Span::styled(
            count(st.shell.events, "event", "events"),
            base,
        )),
    }
    if st.shell.evicted > 0 {
        events.push(Span::styled(
            format!(" ({} evicted)", st.shell.evicted),
            base.fg(t.warn),
        ));
    }
    Part::new(events).drop_at(DROP_EVENTS)
}

/// The line's width: the parts, a 3-column separator before each unglued
/// part but the first, and one leading space when the brand is gone.
fn line_width(parts: &[Part]) -> usize {
    let lead = match parts.first() {
        Some(p) if p.drop == Some(DROP_BRAND) => 0,
        _ => 1,
    };
    lead + parts
        .iter()
        .enumerate()
        .map(|(i, p)| p.width() + if i > 0 && !p.glued { 3 } else { 0 })
        .sum::<usize>()
}

/// Drop, then cut, parts until the line fits `width` (if it can: a part
/// that never goes keeps at least `MIN_SHRUNK` characters).
fn fit(parts: &mut Vec<Part>, width: usize) {
    while line_width(parts) > width {
        // (rank, index, whether only the part's label goes)
        let Some((_, i, label)) = parts
            .iter()
            .enumerate()
            .flat_map(|(i, p)| {
                let whole = p.drop.map(|d| (d, i, false));
                let label = p.label.map(|(d, _)| (d, i, true));
                whole.into_iter().chain(label)
            })
            .min()
        else {
            break;
        };
        if label {
            let (_, n) = parts[i].label.take().unwrap_or_default();
            parts[i].spans.drain(..n);
        } else {
            parts.remove(i);
        }
    }
    // Still too wide: take a column at a time from the widest part that
    // may be cut, so long texts end up cut alike (a failure's reason and a
    // recording's path both keep their start) rather than one to nothing.
    let full: Vec<String> = parts.iter().map(text).collect();
    while line_width(parts) > width {
        let Some((i, p)) = parts
            .iter_mut()
            .enumerate()
            .filter(|(_, p)| p.shrink && p.spans.len() == 1)
            .filter(|(_, p)| p.width() > MIN_SHRUNK + 1)
            .max_by_key(|(_, p)| p.width())
        else {
            break;
        };
        // The ellipsis takes a column: keep two fewer than the part has.
        let keep = p.width() - 2;
        p.spans[0].content = cut(&full[i], keep).into();
    }
}

/// A part's text, as first made (before any cut).
fn text(p: &Part) -> String {
    p.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// `s` cut to at most `cols` columns, plus an ellipsis.
fn cut(s: &str, cols: usize) -> String {
    let (kept, _) = crate::tui::chrome::take_cols(s.chars(), cols);
    let mut out: String = kept.into_iter().collect();
    out.push('…');
    out
}

/// Where `draw_tabs` puts each tab: its label, then one space.
pub fn tab_spans(area: Rect, st: &View) -> Vec<(Pane, u16, u16)> {
    let mut x = area.x;
    tab_labels(st, area.width)
        .into_iter()
        .map(|(p, label)| {
            let w = label.width() as u16 + 1;
            x += w;
            (p, x - w, x)
        })
        .collect()
}

/// The tab bar's labels: every pane's full name, padded, where they all
/// fit in `width`; else unpadded; else the focused tab keeps its name and
/// the others shorten to three letters, or to their number alone.
pub fn tab_labels(st: &View, width: u16) -> Vec<(Pane, String)> {
    let focus = st.shell.focus;
    let padded = |p: Pane| crate::tui::chrome::tab_label(p);
    let tiers: [&dyn Fn(Pane) -> String; 4] = [
        &padded,
        &|p| format!("{} {}", p.number(), p.title()),
        &|p| {
            if p == focus {
                padded(p)
            } else {
                format!("{} {}", p.number(), &p.title()[..3])
            }
        },
        &|p| {
            if p == focus {
                padded(p)
            } else {
                p.number().to_string()
            }
        },
    ];
    let mut out = Vec::new();
    for label in tiers {
        out = st.tabs().map(|p| (p, label(p))).collect::<Vec<_>>();
        let w: usize = out.iter().map(|(_, l)| l.width() + 1).sum();
        if w <= width as usize + 1 {
            break;
        }
    }
    out
}

/// The tab bar of the narrow layout.
pub fn draw_tabs(f: &mut Frame, area: Rect, st: &View) {
    let t = &st.shell.theme;
    let mut spans = Vec::new();
    for (p, label) in tab_labels(st, area.width) {
        let style = if p == st.shell.focus {
            t.selected().add_modifier(Modifier::BOLD)
        } else {
            t.muted()
        };
        spans.push(Span::styled(label, style));
        spans.push(Span::raw(" "));
    }
    f.render_widget(Paragraph::new(Line::from(spans)).style(t.base()), area);
}

/// The revision, and the era when it is the stateless one (no `initialize`,
/// logs only when asked per request): `--protocol auto` may have chosen it.
fn revision_label(revision: &str) -> String {
    match revision.parse::<crate::protocol::Revision>() {
        Ok(r) if r.era() == crate::protocol::Era::Stateless => format!("rev {revision} stateless"),
        _ => format!("rev {revision}"),
    }
}

#[cfg(test)]
mod revision_tests {
    use super::revision_label;

    #[test]
    fn the_stateless_era_is_named_beside_its_revision() {
        assert_eq!(revision_label("2026-07-28"), "rev 2026-07-28 stateless");
        assert_eq!(revision_label("2025-11-25"), "rev 2025-11-25");
        assert_eq!(revision_label("1999-01-01"), "rev 1999-01-01");
    }
}
