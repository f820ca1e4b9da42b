//! Tool names with invisible characters in the TUI: two tools that differ
//! only by a zero-width space must look different on screen, and a call must
//! still send the exact name the server listed.

use crate::support::*;

#[test]
fn look_alike_tool_names_are_shown_apart_and_called_exactly() {
    let sc = Scenario::new();
    let mut app = App::new(sc.trace.clone(), AppOptions::default());
    app.on_msg(Msg::Handshake(Ok(init_result())));
    let tools = vec![
        json!({"name": "echo", "inputSchema": {"type": "object"}}),
        json!({"name": "ec\u{200B}ho", "title": "evil\u{202E}txt", "inputSchema": {"type": "object"}}),
    ];
    app.on_msg(Msg::Tools(Ok(tools)));
    app.apply(Action::FocusTools);
    key(&mut app, KeyCode::Down);
    app.apply(Action::UseTool);
    let screen = render(&mut app, 160, 50);
    assert!(screen.contains("ec<U+200B>ho"), "{screen}");
    assert!(screen.contains("evil<U+202E>txt"), "{screen}");
    assert!(
        !screen.contains('\u{200B}') && !screen.contains('\u{202E}'),
        "{screen}"
    );
    // The call carries the name as the server wrote it.
    assert_eq!(app.panes.composer.tool.as_deref(), Some("ec\u{200B}ho"));
    let effects = app.apply(Action::Send);
    assert!(
        matches!(&effects[..], [Effect::Call { tool, .. }] if tool == "ec\u{200B}ho"),
        "{effects:?}"
    );
}
