//! A call's input rounds as the Progress pane draws them: on its gauge,
//! how many rounds and where the latest stands (`2 input rounds: asked ·
//! answered · resumed`); in the details, each step with its time since
//! the call was sent, its frame and the request that answered.

use crate::calls::input::{StepKind, Steps};
use crate::format::duration;
use crate::tui::calls::Call;
use crate::tui::format::count;
use crate::tui::screen::View;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

/// The gauge's words for the rounds: their count and the latest's steps.
pub fn summary(steps: &Steps) -> Option<String> {
    let rounds = steps.rounds();
    if rounds == 0 {
        return None;
    }
    let at = steps
        .list
        .iter()
        .rposition(|s| s.kind == StepKind::Asked)
        .unwrap_or(0);
    let latest: Vec<&str> = steps.list[at..].iter().map(|s| s.kind.label()).collect();
    Some(format!(
        "{}: {}",
        count(rounds, "input round", "input rounds"),
        latest.join(" · ")
    ))
}

/// The details' section: one row per step.
pub fn lines(c: &Call, st: &View) -> Vec<Line<'static>> {
    if c.steps.is_empty() {
        return Vec::new();
    }
    let t = &st.shell.theme;
    let mut out = vec![Line::styled(
        "   ── input rounds ──",
        t.fg(t.accent).add_modifier(Modifier::BOLD),
    )];
    let mut round = 0;
    for s in &c.steps.list {
        if s.kind == StepKind::Asked {
            round += 1;
        }
        let mut spans = vec![
            Span::styled(
                format!("   +{:<9} ", duration(s.t_us.saturating_sub(c.sent_us))),
                t.muted(),
            ),
            Span::styled(
                format!("round {round} {:<9}", s.kind.label()),
                t.fg(t.fg).add_modifier(Modifier::BOLD),
            ),
            Span::styled(format!("#{}", s.seq), t.muted()),
        ];
        if let Some(by) = &s.by {
            spans.push(Span::styled(format!(" · id {by}"), t.muted()));
        }
        out.push(Line::from(spans));
    }
    if c.steps.dropped > 0 {
        out.push(Line::styled(
            format!("   ({} later steps not kept)", c.steps.dropped),
            t.muted(),
        ));
    }
    out
}
