//! Wording and numbers on screen: thousands separators, singular and
//! plural, a status line that says each thing once, and footers and pane
//! titles that are never cut inside a word, from 80 to 200 columns.

use crate::support::*;
use mcpscope::tui::pane::Pane;

#[test]
fn counts_and_rates_read_with_thousands_separators() {
    let sc = Scenario::new();
    sc.at_ms(10)
        .call(1, "echo", json!({"text": "x"}), Some(json!("t1")));
    sc.at_ms(20)
        .progress(json!("t1"), 0.0, Some(4_000_000.0), "items");
    sc.at_ms(1020)
        .progress(json!("t1"), 1_927_097.0, Some(4_000_000.0), "items");
    sc.at_ms(30)
        .call(2, "echo", json!({"text": "y"}), Some(json!("t2")));
    sc.at_ms(40)
        .progress(json!("t2"), 100_000.0, Some(100_000.0), "done");
    sc.at_ms(1100);
    let mut app = app(&sc);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("1,927,097 / 4,000,000"), "{screen}");
    assert!(screen.contains("1,927,097/s"), "{screen}");
    assert!(screen.contains("100,000 / 100,000"), "{screen}");
}

#[test]
fn one_of_a_thing_is_singular() {
    let sc = Scenario::new();
    sc.at_ms(5).stderr("started");
    let mut app = app(&sc);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("Timeline · 1 row "), "{screen}");
    assert!(screen.contains("│ 1 event"), "{screen}");
}

#[test]
fn the_status_line_says_a_waiting_request_once() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    let params = json!({"message": "Name?", "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "minLength": 1}}}});
    let raw =
        json!({"jsonrpc": "2.0", "id": "a1", "method": "elicitation/create", "params": params})
            .to_string();
    let seq = sc.raw_in(raw.as_bytes());
    app.on_msg(Msg::ServerAsk(mcpscope::client::ServerAsk {
        id: mcpscope::protocol::IdKey::Str("a1".into()),
        seq,
        method: "elicitation/create".into(),
        params,
        raw,
    }));
    let screen = render(&mut app, 200, 48);
    let status = screen.lines().last().unwrap();
    assert_eq!(status.matches("elicitation/create").count(), 1, "{status}");
    app.apply(Action::AnswerServer);
    let screen = render(&mut app, 200, 48);
    assert!(screen.contains("at least 1 character"), "{screen}");
    assert!(!screen.contains("1 characters"), "{screen}");
}

/// A letter or digit right against a top-right corner: a title cut inside a word.
fn cut_titles(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter(|l| {
            let cs: Vec<char> = l.chars().collect();
            cs.windows(2)
                .any(|w| w[0].is_alphanumeric() && matches!(w[1], '╮' | '┓'))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn footers_and_titles_are_never_cut_inside_a_word_from_80_to_200_columns() {
    let panes = [
        Action::FocusProgress,
        Action::FocusTimeline,
        Action::FocusLogs,
        Action::FocusRaw,
        Action::FocusTools,
        Action::FocusComposer,
    ];
    for w in (80..=200).step_by(10) {
        for h in [24, 30, 48] {
            for focus in panes {
                let sc = mid_progress();
                let mut app = app(&sc);
                app.apply(focus);
                let screen = render(&mut app, w, h);
                let footer = screen.lines().last().unwrap().trim_end();
                assert!(
                    footer.ends_with("q quit"),
                    "{w}x{h} {focus:?}: the footer ends with whole hints:\n{footer}"
                );
                let cut = cut_titles(&screen);
                assert!(
                    cut.is_empty(),
                    "{w}x{h} {focus:?}: titles cut:\n{}",
                    cut.join("\n")
                );
            }
        }
    }
    // The narrow layout's focused pane, for completeness.
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusRaw);
    assert_eq!(app.shell.focus, Pane::Raw);
}

/// The replay's footer counts as its header does: `1,200/1,200`, not
/// `1200/1200` under `1,200/1,200 events`.
#[test]
fn the_replays_footer_counts_with_thousands_separators() {
    use mcpscope::trace::{ManualClock, Store, Trace};
    let sc = Scenario::new();
    for i in 0..1200u64 {
        sc.at_ms(i).stderr("line");
    }
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock.clone());
    let playback = mcpscope::tui::replay::Playback::new(recorded(&sc), trace.clone(), clock);
    let mut app = App::new(
        trace,
        AppOptions {
            live: false,
            playback: Some(playback),
            ..AppOptions::default()
        },
    );
    app.apply(Action::ReplayEnd);
    app.sync();
    let screen = render(&mut app, 160, 48);
    let footer = screen.lines().last().unwrap_or_default();
    assert!(footer.contains("1,200/1,200 ×1"), "{footer}");
    assert!(screen.contains("1,200/1,200 events"), "{screen}");
}

/// One cause of several findings is `1 cause`.
#[test]
fn one_cause_is_singular_in_the_findings_title() {
    let sc = with_faults();
    let mut app = app(&sc);
    let mut found = check_all(&sc);
    let rule = found[0].rule;
    found.retain(|f| f.rule == rule);
    let mut second = found[0].clone();
    second.seqs = vec![second.seqs.last().copied().unwrap_or(0) + 1];
    found.truncate(1);
    found.push(second);
    app.add_findings(found);
    app.apply(Action::FocusFindings);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("· 1 cause ·"), "{screen}");
}
