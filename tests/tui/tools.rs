//! The Tools pane's list: long names told apart (cut in the middle), the
//! filter ranking name matches first and selecting the best; the
//! Resources tab's URIs the same way.

use crate::support::*;
use mcpscope::tui::browse::Req;

/// server-everything's names: two share their first 27 characters.
fn everything_tools() -> Vec<Value> {
    let tool = |name: &str, description: &str| {
        json!({"name": name, "description": description,
               "inputSchema": {"type": "object", "properties": {}}})
    };
    vec![
        tool("echo", "Echoes back the input"),
        tool(
            "trigger-elicitation-request",
            "Trigger an elicitation request; the answer is echoed",
        ),
        tool(
            "trigger-elicitation-request-async",
            "Trigger an elicitation request answered later",
        ),
        tool("get-resource-links", "Returns resource links"),
        tool("trigger-long-running-operation", "Progress for a while"),
    ]
}

fn everything_app(sc: &Scenario) -> App {
    let mut app = App::new(sc.trace.clone(), AppOptions::default());
    app.set_server(&init_result());
    app.on_msg(Msg::Handshake(Ok(init_result())));
    app.on_msg(Msg::Tools(Ok(everything_tools())));
    app.sync();
    app
}

/// The Tools pane's rows that show a tool name starting with `prefix`.
fn name_cells(screen: &str, prefix: &str) -> Vec<String> {
    screen
        .lines()
        .filter_map(|l| {
            let at = l.find(&format!(" {prefix}"))?;
            let cell: String = l[at + 1..].chars().take_while(|c| *c != ' ').collect();
            Some(cell)
        })
        .collect()
}

#[test]
fn long_names_that_share_a_prefix_stay_distinct_at_every_size() {
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        let sc = Scenario::new();
        let mut app = everything_app(&sc);
        app.apply(Action::FocusTools);
        let screen = render(&mut app, w, h);
        let cells = name_cells(&screen, "trigger-el");
        assert!(cells.len() >= 2, "{w}x{h}: both listed:\n{screen}");
        assert_ne!(cells[0], cells[1], "{w}x{h}: told apart:\n{screen}");
        assert!(
            cells.iter().any(|c| c.ends_with("-async")),
            "{w}x{h}: the end of the name is kept:\n{screen}"
        );
    }
}

#[test]
fn the_filter_ranks_name_matches_first_and_selects_the_best() {
    let sc = Scenario::new();
    let mut app = everything_app(&sc);
    app.apply(Action::FocusTools);
    app.apply(Action::Bottom);
    app.apply(Action::Filter);
    // "echo" is a name, and words in two descriptions listed before it.
    typed(&mut app, "echo");
    let t = &app.panes.tools;
    let shown: Vec<&str> = t.visible.iter().map(|i| t.all[*i].name.as_str()).collect();
    assert_eq!(shown, ["echo", "trigger-elicitation-request"]);
    assert_eq!(t.selected().unwrap().name, "echo");
    key(&mut app, KeyCode::Enter);
    // A prefix beats a match inside a name; the listed order breaks ties.
    app.apply(Action::Filter);
    for _ in 0..4 {
        key(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "request");
    let t = &app.panes.tools;
    assert_eq!(t.selected().unwrap().name, "trigger-elicitation-request");
    app.apply(Action::Filter);
    for _ in 0.."request".len() {
        key(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "get");
    assert_eq!(
        app.panes.tools.selected().unwrap().name,
        "get-resource-links"
    );
}

#[test]
fn resource_uris_are_cut_in_the_middle() {
    let sc = Scenario::new();
    let mut app = everything_app(&sc);
    app.apply(Action::FocusTools);
    let caps = json!({"tools": {}, "resources": {}});
    let init: mcpscope::protocol::views::InitializeResult = serde_json::from_value(json!({
        "protocolVersion": "2025-11-25", "capabilities": caps,
        "serverInfo": {"name": "everything", "version": "1"}}))
    .unwrap();
    app.set_server(&init);
    app.on_msg(Msg::Handshake(Ok(init)));
    app.apply(Action::NextTab);
    let uri = |n: &str| format!("demo://resource/static/document/a/very/deep/path/{n}");
    app.on_msg(Msg::Browse(
        Req::ListResources,
        Ok(json!({"resources": [
            {"uri": uri("architecture.md"), "name": "architecture"},
            {"uri": uri("features.md"), "name": "features"}
        ]})),
    ));
    app.on_msg(Msg::Browse(
        Req::ListTemplates,
        Ok(json!({"resourceTemplates": []})),
    ));
    let screen = render(&mut app, 80, 24);
    assert!(screen.contains("architecture.md"), "{screen}");
    assert!(screen.contains("features.md"), "{screen}");
    assert!(screen.contains("demo://"), "{screen}");
}
