//! The Tools pane's Resources and Prompts tabs, driven by keys and
//! messages with no terminal: listing on first show, reading (text and
//! binary), subscriptions and live updates, list changes, the argument
//! form of a template or a prompt, and debounced completions on the trace
//! clock (stale replies dropped). Snapshots of each tab and form, 80×24
//! and wide.

use crate::support::*;
use mcpscope::protocol::views::InitializeResult;
use mcpscope::tui::browse::{Req, Tab};

fn init(caps: Value) -> InitializeResult {
    serde_json::from_value(json!({
        "protocolVersion": "2025-11-25",
        "capabilities": caps,
        "serverInfo": {"name": "mcp-servers/everything", "version": "2.0.0"}
    }))
    .unwrap()
}

fn full_caps() -> Value {
    json!({"tools": {}, "resources": {"subscribe": true, "listChanged": true},
           "prompts": {"listChanged": true}, "completions": {}})
}

fn browse_app(sc: &Scenario, caps: Value) -> App {
    let mut app = App::new(sc.trace.clone(), AppOptions::default());
    let i = init(caps);
    app.set_server(&i);
    app.on_msg(Msg::Handshake(Ok(i)));
    app.on_msg(Msg::Tools(Ok(tools())));
    app.sync();
    app
}

fn reqs(effects: Vec<Effect>) -> Vec<Req> {
    effects
        .into_iter()
        .filter_map(|e| match e {
            Effect::Browse(r) => Some(r),
            _ => None,
        })
        .collect()
}

fn resources() -> Value {
    json!({"resources": [
        {"uri": "demo://resource/static/document/architecture.md", "name": "architecture.md",
         "mimeType": "text/markdown", "description": "How the server is built"},
        {"uri": "demo://resource/static/document/features.md", "name": "features.md",
         "mimeType": "text/markdown", "size": 2048}
    ]})
}

fn templates() -> Value {
    json!({"resourceTemplates": [
        {"uriTemplate": "demo://resource/dynamic/text/{resourceId}", "name": "Dynamic Text Resource",
         "mimeType": "text/plain", "description": "Plaintext dynamic resource fabricated from the {resourceId} variable"}
    ]})
}

fn prompts() -> Value {
    json!({"prompts": [
        {"name": "simple-prompt", "title": "Simple Prompt", "description": "A prompt with no arguments"},
        {"name": "completable-prompt", "title": "Team Management",
         "description": "First argument choice narrows values for second argument.",
         "arguments": [
            {"name": "department", "description": "Choose the department.", "required": true},
            {"name": "name", "description": "Choose a team member to lead the selected department.", "required": true}
         ]}
    ]})
}

/// Focus the Tools pane and show the Resources tab, its lists answered.
fn on_resources(app: &mut App) {
    app.apply(Action::FocusTools);
    let asked = reqs(app.apply(Action::NextTab));
    assert_eq!(asked, vec![Req::ListResources, Req::ListTemplates]);
    app.on_msg(Msg::Browse(Req::ListResources, Ok(resources())));
    app.on_msg(Msg::Browse(Req::ListTemplates, Ok(templates())));
}

#[test]
fn resources_are_listed_once_read_and_scrolled() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    on_resources(&mut app);
    assert_eq!(app.panes.tools.browse.tab, Tab::Resources);
    assert_eq!(app.panes.tools.browse.resources.len(), 3);
    // Showing the tab again does not list again.
    app.apply(Action::NextTab);
    assert!(reqs(app.apply(Action::PrevTab)).is_empty());
    let screen = render(&mut app, 160, 48);
    assert!(
        // The title's parts that do not fit go whole ("· 1 template").
        screen.contains("5 Tools │ Resources │ Prompts (t) · 2 ━"),
        "{screen}"
    );
    assert!(screen.contains("◇Dynamic Text Resource"), "{screen}");

    key(&mut app, KeyCode::Down);
    let read = reqs(app.apply(Action::Open));
    let uri = "demo://resource/static/document/features.md";
    assert_eq!(read, vec![Req::Read { uri: uri.into() }]);
    assert!(app.panes.tools.browse.detail_focus);
    let text: String = (1..=60).map(|i| format!("line {i}\n")).collect();
    app.on_msg(Msg::Browse(
        Req::Read { uri: uri.into() },
        Ok(json!({"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]})),
    ));
    let screen = render(&mut app, 80, 24);
    assert!(
        screen.contains("line 1\n") || screen.contains("line 1 "),
        "{screen}"
    );
    // Keys scroll the contents while the detail view has them.
    app.apply(Action::PageDown);
    app.apply(Action::Down);
    let d = app.panes.tools.browse.resources.detail.as_ref().unwrap();
    assert!(d.scroll > 1, "scrolled: {}", d.scroll);
    app.apply(Action::Bottom);
    let screen = render(&mut app, 80, 24);
    assert!(screen.contains("line 60"), "{screen}");
    insta::assert_snapshot!("resource_text_80x24", screen);
    // Esc goes back to the list, where the cursor stayed.
    app.apply(Action::Back);
    assert!(!app.panes.tools.browse.detail_focus);
    assert_eq!(app.panes.tools.browse.resources.cursor.selected, 1);
    insta::assert_snapshot!("resources_list_80x24", render(&mut app, 80, 24));
}

#[test]
fn a_blob_shows_its_size_type_and_hex() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    on_resources(&mut app);
    app.apply(Action::Open);
    let uri = "demo://resource/static/document/architecture.md";
    let bytes: Vec<u8> = (0u8..=255).chain(0u8..44).collect();
    use base64::Engine as _;
    let blob = base64::engine::general_purpose::STANDARD.encode(&bytes);
    app.on_msg(Msg::Browse(
        Req::Read { uri: uri.into() },
        Ok(json!({"contents": [{"uri": uri, "mimeType": "application/octet-stream", "blob": blob}]})),
    ));
    let d = app.panes.tools.browse.resources.detail.as_ref().unwrap();
    assert!(
        d.lines[0]
            .1
            .starts_with("binary, 300 bytes · application/octet-stream")
    );
    assert_eq!(d.lines.len(), 1 + 16 + 1, "16 hex rows, then the cut said");
    assert!(d.lines[17].1.contains("first 256 of 300 bytes"));
    insta::assert_snapshot!("resource_blob_100x30", render(&mut app, 100, 30));
}

#[test]
fn subscribing_marks_the_resource_and_updates_count_live() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    on_resources(&mut app);
    let uri = "demo://resource/static/document/architecture.md";
    let asked = reqs(app.apply(Action::Subscribe));
    assert_eq!(
        asked,
        vec![Req::Subscribe {
            uri: uri.into(),
            on: true
        }]
    );
    app.on_msg(Msg::Browse(asked[0].clone(), Ok(json!({}))));
    assert!(app.panes.tools.browse.resources.resources.items[0].subscribed);
    for ms in [1000, 6000] {
        sc.at_ms(ms).inn(json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}));
    }
    // An update for a URI not listed changes nothing.
    sc.inn(json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "x://other"}}));
    sc.at_ms(8000);
    app.sync();
    let r = &app.panes.tools.browse.resources.resources.items[0];
    assert_eq!((r.updates, r.last_update_us), (2, Some(6_000_000)));
    let screen = render(&mut app, 80, 24);
    assert!(screen.contains("●architecture.md"), "{screen}");
    assert!(screen.contains("↻2 2s ago"), "{screen}");
    insta::assert_snapshot!("resources_subscribed_80x24", screen);
    // The list changed: listed again on the next tick, the subscription kept.
    sc.inn(json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}));
    app.sync();
    assert_eq!(
        reqs(app.due()),
        vec![Req::ListResources, Req::ListTemplates]
    );
    assert!(reqs(app.due()).is_empty(), "asked once");
    app.on_msg(Msg::Browse(Req::ListResources, Ok(resources())));
    let r = &app.panes.tools.browse.resources.resources.items[0];
    assert!(r.subscribed && r.updates == 2);
    // Again: unsubscribe.
    let asked = reqs(app.apply(Action::Subscribe));
    assert_eq!(
        asked,
        vec![Req::Subscribe {
            uri: uri.into(),
            on: false
        }]
    );
}

#[test]
fn without_the_capabilities_nothing_is_asked() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, json!({"tools": {}, "resources": {}}));
    on_resources(&mut app);
    assert!(reqs(app.apply(Action::Subscribe)).is_empty());
    assert!(
        app.shell
            .notice
            .as_deref()
            .unwrap()
            .contains("resources.subscribe"),
        "{:?}",
        app.shell.notice
    );
    // No prompts declared: the tab says so and lists nothing.
    assert!(reqs(app.apply(Action::NextTab)).is_empty());
    let screen = render(&mut app, 80, 24);
    assert!(
        screen.contains("declared no prompts capability"),
        "{screen}"
    );
    // A template's form, but no completions asked (not declared).
    app.apply(Action::PrevTab);
    app.apply(Action::Bottom);
    app.apply(Action::Open);
    assert!(app.overlays.argform.is_some());
    typed(&mut app, "7");
    sc.at_ms(10_000);
    assert!(reqs(app.due()).is_empty());
}

#[test]
fn a_template_form_expands_the_uri_with_completions() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    on_resources(&mut app);
    app.apply(Action::Bottom);
    sc.at_ms(1000);
    assert!(reqs(app.apply(Action::Open)).is_empty());
    assert!(app.overlays.argform.is_some());
    // Entering the field asks for its completions once the debounce ran out.
    sc.at_ms(1249);
    assert!(reqs(app.due()).is_empty());
    sc.at_ms(1250);
    let asked = reqs(app.due());
    let tpl = "demo://resource/dynamic/text/{resourceId}";
    assert_eq!(
        asked,
        vec![Req::Complete {
            round: 1,
            params: json!({"ref": {"type": "ref/resource", "uri": tpl},
                           "argument": {"name": "resourceId", "value": ""}})
        }]
    );
    // Typing restarts the debounce; each keystroke pushes it back.
    sc.at_ms(1300);
    typed(&mut app, "1");
    sc.at_ms(1500);
    typed(&mut app, "2");
    sc.at_ms(1700);
    assert!(reqs(app.due()).is_empty());
    sc.at_ms(1750);
    let asked = reqs(app.due());
    let Req::Complete { round, params } = &asked[0] else {
        panic!("{asked:?}")
    };
    assert_eq!((*round, &params["argument"]["value"]), (2, &json!("12")));
    // The reply to the first (older) request comes late: dropped.
    app.on_msg(Msg::Browse(
        Req::Complete {
            round: 1,
            params: json!({}),
        },
        Ok(json!({"completion": {"values": ["1", "2", "3"]}})),
    ));
    assert!(app.overlays.argform.as_ref().unwrap().shown().is_empty());
    app.on_msg(Msg::Browse(
        asked[0].clone(),
        Ok(json!({"completion": {"values": ["12", "120", "121"], "total": 300, "hasMore": true}})),
    ));
    let f = app.overlays.argform.as_ref().unwrap();
    assert_eq!(f.shown(), ["12", "120", "121"]);
    insta::assert_snapshot!("template_form_completions_80x24", render(&mut app, 80, 24));
    // Down picks the second value, Tab takes it.
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Tab);
    let f = app.overlays.argform.as_ref().unwrap();
    assert_eq!(f.value(0), "120");
    assert!(f.shown().is_empty());
    let sent = reqs(key(&mut app, KeyCode::Enter));
    assert_eq!(
        sent,
        vec![Req::Read {
            uri: "demo://resource/dynamic/text/120".into()
        }]
    );
    assert!(app.overlays.argform.is_none());
    assert!(app.panes.tools.browse.detail_focus);
}

#[test]
fn a_reply_for_a_value_since_changed_is_dropped() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    on_resources(&mut app);
    app.apply(Action::Bottom);
    app.apply(Action::Open);
    typed(&mut app, "5");
    sc.at_ms(1000);
    let asked = reqs(app.due());
    // The user typed on before the reply came: it is for "5", not "56".
    typed(&mut app, "6");
    app.on_msg(Msg::Browse(
        asked[0].clone(),
        Ok(json!({"completion": {"values": ["5"]}})),
    ));
    assert!(app.overlays.argform.as_ref().unwrap().shown().is_empty());
    // Over 100 values: kept to 100, and said.
    sc.at_ms(2000);
    let asked = reqs(app.due());
    let many: Vec<String> = (0..150).map(|i| format!("56{i}")).collect();
    app.on_msg(Msg::Browse(
        asked[0].clone(),
        Ok(json!({"completion": {"values": many}})),
    ));
    let f = app.overlays.argform.as_ref().unwrap();
    assert_eq!(f.shown().len(), 100);
    assert!(f.complete.as_ref().unwrap().cut);
    // Esc hides the values first, then closes the form.
    key(&mut app, KeyCode::Esc);
    assert!(app.overlays.argform.as_ref().unwrap().shown().is_empty());
    key(&mut app, KeyCode::Esc);
    assert!(app.overlays.argform.is_none());
}

#[test]
fn a_prompt_form_checks_required_arguments_and_completes_with_context() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    app.apply(Action::FocusTools);
    app.apply(Action::NextTab);
    assert_eq!(reqs(app.apply(Action::NextTab)), vec![Req::ListPrompts]);
    app.on_msg(Msg::Browse(Req::ListPrompts, Ok(prompts())));
    insta::assert_snapshot!("prompts_list_80x24", render(&mut app, 80, 24));
    // No arguments: got at once.
    assert_eq!(
        reqs(app.apply(Action::Open)),
        vec![Req::GetPrompt {
            name: "simple-prompt".into(),
            args: Default::default()
        }]
    );
    app.apply(Action::Back);
    app.apply(Action::Down);
    app.apply(Action::Open);
    // Required arguments are checked before anything is sent.
    assert!(reqs(key(&mut app, KeyCode::Enter)).is_empty());
    assert_eq!(
        app.overlays.argform.as_ref().unwrap().form.problems.len(),
        2
    );
    typed(&mut app, "Engineering");
    key(&mut app, KeyCode::Down);
    typed(&mut app, "A");
    sc.at_ms(5000);
    let asked = reqs(app.due());
    let Req::Complete { params, .. } = &asked[0] else {
        panic!("{asked:?}")
    };
    assert_eq!(
        params,
        &json!({"ref": {"type": "ref/prompt", "name": "completable-prompt"},
                "argument": {"name": "name", "value": "A"},
                "context": {"arguments": {"department": "Engineering"}}})
    );
    app.on_msg(Msg::Browse(
        asked[0].clone(),
        Ok(json!({"completion": {"values": ["Alice"]}})),
    ));
    insta::assert_snapshot!("prompt_form_80x24", render(&mut app, 80, 24));
    key(&mut app, KeyCode::Tab);
    let sent = reqs(key(&mut app, KeyCode::Enter));
    let expect = Req::GetPrompt {
        name: "completable-prompt".into(),
        args: json!({"department": "Engineering", "name": "Alice"})
            .as_object()
            .unwrap()
            .clone(),
    };
    assert_eq!(sent, vec![expect.clone()]);
    app.on_msg(Msg::Browse(
        expect,
        Ok(
            json!({"messages": [{"role": "user", "content": {"type": "text",
            "text": "Please promote Alice to the head of the Engineering team."}}]}),
        ),
    ));
    let screen = render(&mut app, 80, 24);
    assert!(screen.contains("Please promote Alice"), "{screen}");
    insta::assert_snapshot!("prompt_result_80x24", screen);
    // The server's list changed: listed again on the next tick.
    sc.inn(json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}));
    app.sync();
    assert_eq!(reqs(app.due()), vec![Req::ListPrompts]);
}

#[test]
fn older_revisions_get_no_completion_context() {
    let sc = Scenario::new();
    let mut app = App::new(sc.trace.clone(), AppOptions::default());
    let mut i = init(full_caps());
    i.protocol_version = "2025-03-26".into();
    app.set_server(&i);
    app.on_msg(Msg::Handshake(Ok(i)));
    app.apply(Action::FocusTools);
    app.apply(Action::PrevTab);
    app.on_msg(Msg::Browse(Req::ListPrompts, Ok(prompts())));
    app.apply(Action::Down);
    app.apply(Action::Open);
    typed(&mut app, "Sales");
    key(&mut app, KeyCode::Tab);
    sc.at_ms(1000);
    let asked = reqs(app.due());
    let Req::Complete { params, .. } = &asked[0] else {
        panic!("{asked:?}")
    };
    assert!(params.get("context").is_none(), "{params}");
}

#[test]
fn a_click_on_a_tab_name_switches_to_it() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    // The Tools column shows while focused.
    app.apply(Action::FocusTools);
    render(&mut app, 160, 48);
    // " 5 Tools │ Resources │ Prompts": the pane starts at column 0.
    let click = |col| MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: col,
        row: 1,
        modifiers: KeyModifiers::NONE,
    };
    let asked = reqs(app.handle_mouse(click(26)));
    assert_eq!(app.panes.tools.browse.tab, Tab::Prompts);
    assert_eq!(asked, vec![Req::ListPrompts]);
    app.handle_mouse(click(5));
    assert_eq!(app.panes.tools.browse.tab, Tab::Tools);
    app.handle_mouse(click(14));
    assert_eq!(app.panes.tools.browse.tab, Tab::Resources);
}

#[test]
fn a_click_on_a_row_selects_it_and_huge_lists_are_cut_and_counted() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    on_resources(&mut app);
    render(&mut app, 160, 48);
    // Rows start under the title: the third row is the template.
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 5,
        row: 4,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.panes.tools.browse.resources.cursor.selected, 2);
    let many: Vec<Value> = (0..5_200)
        .map(|i| json!({"uri": format!("r://{i}"), "name": format!("r{i}")}))
        .collect();
    app.on_msg(Msg::Browse(
        Req::ListResources,
        Ok(json!({"resources": many})),
    ));
    let r = &app.panes.tools.browse.resources.resources;
    assert_eq!((r.items.len(), r.listed), (5_000, 5_200));
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("showing 5000 of 5200"), "{screen}");
    // A failed listing says so in the pane.
    app.on_msg(Msg::Browse(
        Req::ListTemplates,
        Err("server error -32601: Method not found".into()),
    ));
    let screen = render(&mut app, 100, 30);
    assert!(
        screen.contains("resources/templates/list failed: server error -32601"),
        "{screen}"
    );
}

#[test]
fn long_lines_wrap_in_the_detail_view() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    on_resources(&mut app);
    app.apply(Action::Open);
    let uri = "demo://resource/static/document/architecture.md";
    let long = format!("start {} end-of-the-line", "word ".repeat(40));
    app.on_msg(Msg::Browse(
        Req::Read { uri: uri.into() },
        Ok(json!({"contents": [{"uri": uri, "text": long}]})),
    ));
    let screen = render(&mut app, 80, 24);
    assert!(screen.contains("┃start word"), "{screen}");
    assert!(screen.contains("end-of-the-line"), "{screen}");
    assert!(screen.contains("1–2/2 resources/read"), "{screen}");
}

#[test]
fn a_tab_filters_its_own_list() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    on_resources(&mut app);
    key(&mut app, KeyCode::Char('/'));
    typed(&mut app, "DYNAMIC");
    key(&mut app, KeyCode::Enter);
    let r = &app.panes.tools.browse.resources;
    assert_eq!((r.len(), r.filter.as_str()), (1, "DYNAMIC"));
    assert!(matches!(
        r.selected(),
        Some(mcpscope::tui::browse::Row::Template(_))
    ));
    // The Tools tab's filter is another one.
    assert_eq!(app.panes.tools.filter, "");
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("filter \"DYNAMIC\" (1 shown)"), "{screen}");
    // Backspace drops it.
    key(&mut app, KeyCode::Backspace);
    assert_eq!(app.panes.tools.browse.resources.len(), 3);
    // On the Prompts tab, a filter matching nothing says so.
    app.apply(Action::NextTab);
    app.on_msg(Msg::Browse(Req::ListPrompts, Ok(prompts())));
    key(&mut app, KeyCode::Char('/'));
    typed(&mut app, "zzz");
    key(&mut app, KeyCode::Enter);
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("no prompt matches the filter"), "{screen}");
    assert!(app.panes.tools.browse.prompts.selected().is_none());
    assert!(reqs(app.apply(Action::Open)).is_empty());
}

/// 2026-07-28 removed `resources/subscribe`: every watched resource rides
/// one `subscriptions/listen` stream, and each change sends the whole new set.
#[test]
fn the_stateless_revision_watches_through_one_listen_stream() {
    let sc = Scenario::new();
    let mut app = App::new(sc.trace.clone(), AppOptions::default());
    let mut i = init(full_caps());
    i.protocol_version = "2026-07-28".into();
    app.set_server(&i);
    app.on_msg(Msg::Handshake(Ok(i)));
    on_resources(&mut app);
    let arch = "demo://resource/static/document/architecture.md";
    let feat = "demo://resource/static/document/features.md";
    let asked = reqs(app.apply(Action::Subscribe));
    assert_eq!(
        asked,
        vec![Req::Watch {
            uri: arch.into(),
            on: true,
            uris: vec![arch.into()]
        }]
    );
    assert_eq!(asked[0].method(), "subscriptions/listen");
    app.on_msg(Msg::Browse(
        asked[0].clone(),
        Ok(json!({"resourceSubscriptions": [arch]})),
    ));
    assert!(app.panes.tools.browse.resources.resources.items[0].subscribed);
    let notice = app.shell.notice.clone().unwrap_or_default();
    assert!(notice.contains("watching"), "{notice}");
    // Updates on the listen stream carry its subscription id; they count the same.
    sc.at_ms(1000).inn(
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
        "params": {"uri": arch, "_meta": {"io.modelcontextprotocol/subscriptionId": 3}}}),
    );
    app.sync();
    assert_eq!(
        app.panes.tools.browse.resources.resources.items[0].updates,
        1
    );
    // A second resource: the new set has both.
    key(&mut app, KeyCode::Down);
    let asked = reqs(app.apply(Action::Subscribe));
    assert_eq!(
        asked,
        vec![Req::Watch {
            uri: feat.into(),
            on: true,
            uris: vec![arch.into(), feat.into()]
        }]
    );
    // The server's acknowledgement decides: it left the second one out.
    app.on_msg(Msg::Browse(
        asked[0].clone(),
        Ok(json!({"resourceSubscriptions": [arch]})),
    ));
    let items = &app.panes.tools.browse.resources.resources.items;
    assert!(items[0].subscribed && !items[1].subscribed);
    let notice = app.shell.notice.clone().unwrap_or_default();
    assert!(notice.contains("did not take"), "{notice}");
    // Off again: the set without it; an error leaves the marks as they were.
    key(&mut app, KeyCode::Up);
    let asked = reqs(app.apply(Action::Subscribe));
    assert_eq!(
        asked,
        vec![Req::Watch {
            uri: arch.into(),
            on: false,
            uris: vec![]
        }]
    );
    app.on_msg(Msg::Browse(
        asked[0].clone(),
        Err("transport closed".into()),
    ));
    assert!(app.panes.tools.browse.resources.resources.items[0].subscribed);
    let notice = app.shell.notice.clone().unwrap_or_default();
    assert!(
        notice.contains("subscriptions/listen: transport closed"),
        "{notice}"
    );
    app.on_msg(Msg::Browse(
        asked[0].clone(),
        Ok(json!({"resourceSubscriptions": []})),
    ));
    assert!(!app.panes.tools.browse.resources.resources.items[0].subscribed);
}

#[test]
fn a_paste_fills_the_field_and_a_plain_template_is_read_at_once() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    on_resources(&mut app);
    app.apply(Action::Bottom);
    app.apply(Action::Open);
    app.handle_paste("4\n2");
    assert_eq!(app.overlays.argform.as_ref().unwrap().value(0), "4 2");
    sc.at_ms(1000);
    let asked = reqs(app.due());
    let Req::Complete { params, .. } = &asked[0] else {
        panic!("{asked:?}")
    };
    assert_eq!(params["argument"]["value"], "4 2");
    assert_eq!(
        reqs(key(&mut app, KeyCode::Enter)),
        vec![Req::Read {
            uri: "demo://resource/dynamic/text/4%202".into()
        }]
    );
    // A template naming no variable is a URI: read without a form.
    app.apply(Action::Back);
    app.on_msg(Msg::Browse(
        Req::ListTemplates,
        Ok(json!({"resourceTemplates": [{"uriTemplate": "plain://fixed", "name": "fixed"}]})),
    ));
    app.apply(Action::Bottom);
    assert_eq!(
        reqs(app.apply(Action::Open)),
        vec![Req::Read {
            uri: "plain://fixed".into()
        }]
    );
    assert!(app.overlays.argform.is_none());
}

#[test]
fn a_recorded_trace_asks_nothing() {
    let sc = Scenario::new();
    let opts = AppOptions {
        live: false,
        ..AppOptions::default()
    };
    let mut app = App::new(sc.trace.clone(), opts);
    app.set_server(&init(full_caps()));
    app.apply(Action::FocusTools);
    assert!(reqs(app.apply(Action::NextTab)).is_empty());
    for a in [Action::Open, Action::Subscribe, Action::Refresh] {
        assert!(reqs(app.apply(a)).is_empty());
        assert!(
            app.shell
                .notice
                .as_deref()
                .unwrap()
                .contains("recorded trace")
        );
    }
    let screen = render(&mut app, 80, 24);
    assert!(
        screen.contains("a recorded trace: nothing to list"),
        "{screen}"
    );
    sc.inn(json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}));
    app.sync();
    assert!(app.due().is_empty());
}

#[test]
fn a_recorded_trace_shows_what_the_session_listed() {
    let sc = Scenario::new();
    let opts = AppOptions {
        live: false,
        ..AppOptions::default()
    };
    let mut app = App::new(sc.trace.clone(), opts);
    let rpc = |id: u64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let res = |id: u64, result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
    sc.out(rpc(0, "initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}})));
    sc.inn(res(0, json!({"protocolVersion": "2025-06-18", "capabilities": full_caps(), "serverInfo": {"name": "recorded-server", "version": "9"}})));
    sc.out(rpc(1, "tools/list", json!({})));
    sc.inn(res(
        1,
        json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
    ));
    // Two pages of resources: the second, asked with a cursor, is added.
    sc.out(rpc(2, "resources/list", json!({})));
    sc.inn(res(
        2,
        json!({"resources": [{"uri": "a://1", "name": "one"}], "nextCursor": "c"}),
    ));
    sc.out(rpc(3, "resources/list", json!({"cursor": "c"})));
    sc.inn(res(
        3,
        json!({"resources": [{"uri": "a://2", "name": "two"}]}),
    ));
    sc.out(rpc(4, "prompts/list", json!({})));
    sc.inn(res(
        4,
        json!({"prompts": [{"name": "greet", "arguments": [{"name": "who"}]}]}),
    ));
    app.sync();
    assert_eq!(app.shell.server.name, "recorded-server");
    assert!(app.panes.tools.browse.caps.resources && app.panes.tools.browse.caps.prompts);
    let uris: Vec<&str> = (app.panes.tools.browse.resources.resources.items.iter())
        .map(|r| r.uri.as_str())
        .collect();
    assert_eq!(uris, ["a://1", "a://2"]);
    assert_eq!(app.panes.tools.browse.prompts.list.items.len(), 1);
    app.apply(Action::FocusTools);
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("echo"), "{screen}");
    app.apply(Action::NextTab);
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("a://2"), "{screen}");
    // A fresh listing (no cursor) starts over; still nothing is asked.
    sc.out(rpc(5, "resources/list", json!({})));
    sc.inn(res(5, json!({"resources": [{"uri": "b://only"}]})));
    app.sync();
    let items = &app.panes.tools.browse.resources.resources.items;
    assert_eq!((items.len(), items[0].uri.as_str()), (1, "b://only"));
    assert!(app.due().is_empty());
}

#[test]
fn updates_find_their_resource_after_the_list_reordered() {
    let sc = Scenario::new();
    let mut app = browse_app(&sc, full_caps());
    on_resources(&mut app);
    let mut reversed = resources();
    reversed["resources"].as_array_mut().unwrap().reverse();
    app.on_msg(Msg::Browse(Req::ListResources, Ok(reversed)));
    let uri = "demo://resource/static/document/features.md";
    sc.at_ms(3000).inn(json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}));
    app.sync();
    let items = &app.panes.tools.browse.resources.resources.items;
    assert_eq!(items[0].uri, uri);
    assert_eq!((items[0].updates, items[1].updates), (1, 0));
}
