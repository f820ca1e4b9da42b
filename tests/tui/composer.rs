//! The Composer: prefilled arguments, validation, sending (calls and raw
//! messages), `--run`, the copied command line.

use crate::support::*;
use mcpscope::client::{Limits, TokenPolicy};
use mcpscope::protocol::IdKey;
use mcpscope::protocol::views::LogLevel;
use mcpscope::tui::pane::Pane;
use mcpscope::tui::shell::Conn;

#[test]
fn composer_prefills_validates_and_sends() {
    let sc = mid_progress();
    let mut app = app(&sc);
    assert_eq!(app.panes.composer.tool.as_deref(), Some("upload_file"));
    assert!(
        app.panes
            .composer
            .text()
            .contains("\"size_bytes\": 5242880")
    );

    // Pick echo through the tools filter, then load it.
    app.apply(Action::FocusTools);
    app.apply(Action::Filter);
    typed(&mut app, "echo");
    key(&mut app, KeyCode::Enter);
    app.apply(Action::UseTool);
    assert_eq!(app.shell.focus, Pane::Composer);
    assert_eq!(app.panes.composer.tool.as_deref(), Some("echo"));
    assert_eq!(app.panes.composer.text(), "{\n  \"text\": \"\"\n}");

    // Break the JSON: sending is refused with the parser's position.
    app.apply(Action::Edit);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::End);
    typed(&mut app, ",");
    assert!(
        app.panes
            .composer
            .check
            .error
            .as_deref()
            .unwrap()
            .starts_with("line 3")
    );
    assert!(ctrl(&mut app, 's').is_empty());
    assert!(app.shell.notice.as_deref().unwrap().starts_with("not sent"));
    key(&mut app, KeyCode::Backspace);
    key(&mut app, KeyCode::Left);
    typed(&mut app, "hey");
    assert_eq!(app.panes.composer.check.error, None);
    key(&mut app, KeyCode::Esc);
    assert!(!app.panes.composer.editing);

    app.apply(Action::CycleToken); // auto int
    app.apply(Action::CycleLogLevel); // debug
    app.apply(Action::IdleDown); // 30 s
    let effects = app.apply(Action::Send);
    assert_eq!(
        effects,
        vec![Effect::Call {
            tool: "echo".into(),
            args: json!({"text": "hey"}),
            token: TokenPolicy::AutoInt,
            level: Some(LogLevel::Debug),
            limits: Limits {
                idle: Some(std::time::Duration::from_secs(30)),
                max: Some(std::time::Duration::from_secs(600)),
            },
            task: false,
        }]
    );
    let cmd = app.panes.composer.command_line(&app.shell.server_cli);
    assert_eq!(
        cmd,
        r#"mcpscope call --demo --tool echo --args '{"text":"hey"}' --token auto-int --log-level debug --timeout 30"#
    );
    let copied = app.apply(Action::CopyCommand);
    assert_eq!(
        copied,
        vec![Effect::Copy {
            text: cmd,
            what: "the command line".into()
        }]
    );

    // Arguments typed for a tool survive switching away and back.
    app.apply(Action::FocusTools);
    app.apply(Action::ClearFilter);
    app.apply(Action::Top);
    app.apply(Action::UseTool);
    app.apply(Action::FocusTools);
    app.apply(Action::Filter);
    typed(&mut app, "echo");
    key(&mut app, KeyCode::Enter);
    app.apply(Action::UseTool);
    assert!(app.panes.composer.text().contains("hey"));
}

#[test]
fn raw_mode_sends_requests_and_notifications() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusComposer);
    app.apply(Action::ToggleRawMode);
    let e = app.apply(Action::Send);
    assert!(
        matches!(&e[..], [Effect::Raw { id: Some(IdKey::Str(s)), method, .. }] if &**s == "raw-1" && method == "ping")
    );
    // Remove the id line: a notification.
    app.apply(Action::Edit);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::End);
    for _ in 0..16 {
        key(&mut app, KeyCode::Backspace);
    }
    assert_eq!(
        app.panes.composer.check.error,
        None,
        "{}",
        app.panes.composer.text()
    );
    let e = app.apply(Action::Send);
    assert!(
        matches!(&e[..], [Effect::Raw { id: None, method, .. }] if method == "ping"),
        "{e:?}"
    );
}

#[test]
fn runs_fire_once_the_tools_are_known_and_offline_apps_send_nothing() {
    let sc = Scenario::new();
    let run = mcpscope::tui::app::parse_run(r#"upload_file {"size_bytes": 1024}"#).unwrap();
    assert!(mcpscope::tui::app::parse_run("x [1]").is_err());
    assert!(mcpscope::tui::app::parse_run("x {").is_err());
    assert_eq!(mcpscope::tui::app::parse_run("echo").unwrap().1, json!({}));
    let mut app = App::new(
        sc.trace.clone(),
        AppOptions {
            runs: vec![run],
            ..AppOptions::default()
        },
    );
    assert!(app.on_msg(Msg::Handshake(Ok(init_result()))).is_empty());
    let fired = app.on_msg(Msg::Tools(Ok(tools())));
    assert!(
        matches!(&fired[..], [Effect::Call { tool, args, .. }] if tool == "upload_file" && args["size_bytes"] == 1024)
    );
    assert!(
        app.on_msg(Msg::Tools(Ok(tools()))).is_empty(),
        "runs fire once"
    );

    let mut offline = App::new(
        sc.trace.clone(),
        AppOptions {
            live: false,
            ..AppOptions::default()
        },
    );
    offline.set_tools(&tools());
    assert_eq!(offline.shell.conn, Conn::Offline);
    assert!(offline.apply(Action::Send).is_empty());
    assert!(
        offline
            .shell
            .notice
            .as_deref()
            .unwrap()
            .contains("recorded trace")
    );
    // Nothing can be sent: no Composer on screen, in the tabs or in focus.
    let wide =
        mcpscope::tui::layout::compute(ratatui::layout::Rect::new(0, 0, 160, 48), &offline.view());
    assert!(wide.panes.iter().all(|(p, _)| *p != Pane::Composer));
    // Nor a Tools column unless it is focused; then it takes the column.
    assert!(wide.panes.iter().all(|(p, _)| *p != Pane::Tools));
    offline.apply(Action::FocusTools);
    let wide =
        mcpscope::tui::layout::compute(ratatui::layout::Rect::new(0, 0, 160, 48), &offline.view());
    let (_, tools) = wide.panes[0];
    assert_eq!(
        (wide.panes[0].0, tools.height),
        (Pane::Tools, 46),
        "the whole column"
    );
    assert!(offline.view().tabs().all(|p| p != Pane::Composer));
    offline.apply(Action::FocusComposer);
    assert_ne!(offline.shell.focus, Pane::Composer);
    assert!(
        offline
            .shell
            .notice
            .as_deref()
            .unwrap()
            .contains("read-only")
    );
    for _ in 0..10 {
        offline.apply(Action::FocusNext);
        assert_ne!(offline.shell.focus, Pane::Composer);
    }
}

/// How `sh` splits a command line into words (the real shell, no guessing).
fn shell_words(cmd: &str) -> Vec<String> {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("set -- {cmd}; printf '%s\\0' \"$@\""))
        .output()
        .expect("sh runs");
    assert!(out.status.success(), "not a valid shell command: {cmd}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_terminator('\0')
        .map(str::to_string)
        .collect()
}

#[test]
fn copied_command_runs_the_same_stdio_call_without_secrets() {
    let args = mcpscope::cli::spec::ServerArgs {
        command: vec![
            "node".into(),
            "my server.js".into(),
            "--api-key".into(),
            "s3cret".into(),
            "--session-token=t0k".into(),
            "--verbose".into(),
        ],
        env: vec!["DB_PASSWD=hunter2".into(), "MODE=it's".into()],
        protocol: "auto".into(),
        ..Default::default()
    };
    let opts = AppOptions {
        server_cli: mcpscope::cli::spec::server_cli(&args),
        ..AppOptions::default()
    };
    let sc = mid_progress();
    let mut app = App::new(sc.trace.clone(), opts);
    app.set_server(&init_result());
    // A legal tool name longer than the list shows: the call needs all of it.
    let long = format!("{}.fetch", "namespace_".repeat(10));
    let mut tools = tools();
    tools.insert(
        0,
        json!({"name": long, "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "default": "a 'b'"}}}}),
    );
    app.on_msg(mcpscope::tui::action::Msg::Tools(Ok(tools)));
    app.sync();
    assert_eq!(app.panes.composer.tool.as_deref(), Some(long.as_str()));
    let effects = app.apply(Action::Send);
    assert!(
        matches!(&effects[..], [Effect::Call { tool, .. }] if *tool == long),
        "{effects:?}"
    );

    let copied = app.apply(Action::CopyCommand);
    let [Effect::Copy { text: cmd, .. }] = &copied[..] else {
        panic!("{copied:?}")
    };
    for secret in ["s3cret", "t0k", "hunter2"] {
        assert!(!cmd.contains(secret), "{cmd}");
    }
    assert_eq!(
        shell_words(cmd),
        [
            "mcpscope",
            "call",
            "-e",
            "DB_PASSWD=[redacted]",
            "-e",
            "MODE=it's",
            "--tool",
            &long,
            "--args",
            r#"{"q":"a 'b'"}"#,
            "--",
            "node",
            "my server.js",
            "--api-key",
            "[redacted]",
            "--session-token=[redacted]",
            "--verbose",
        ]
    );
}

#[test]
fn the_composer_shows_what_a_run_sent_not_the_schema_defaults() {
    let sc = Scenario::new();
    let parse = |s: &str| mcpscope::tui::app::parse_run(s).unwrap();
    let mut app = App::new(
        sc.trace.clone(),
        AppOptions {
            runs: vec![
                parse(r#"pipeline_wait {"polls": 2}"#),
                parse(r#"echo {"text": "first"}"#),
                parse(r#"echo {"text": "second"}"#),
            ],
            ..AppOptions::default()
        },
    );
    app.on_msg(Msg::Handshake(Ok(init_result())));
    assert_eq!(app.on_msg(Msg::Tools(Ok(tools()))).len(), 3);
    let shown = |app: &App| -> serde_json::Value {
        serde_json::from_str(&app.panes.composer.text()).unwrap()
    };
    // It opens on the first run's tool, with exactly what was sent.
    assert_eq!(app.panes.composer.tool.as_deref(), Some("pipeline_wait"));
    assert_eq!(shown(&app), json!({"polls": 2}));
    // Another tool that was run shows its last call's arguments…
    app.apply(Action::FocusTools);
    app.apply(Action::Top);
    while app.panes.tools.selected().map(|t| t.name.as_str()) != Some("echo") {
        app.apply(Action::Down);
    }
    app.apply(Action::UseTool);
    assert_eq!(app.panes.composer.tool.as_deref(), Some("echo"));
    assert_eq!(shown(&app), json!({"text": "second"}));
    // …and sending repeats that call.
    app.apply(Action::FocusComposer);
    assert!(matches!(
        &app.apply(Action::Send)[..],
        [Effect::Call { tool, args, .. }] if tool == "echo" && args == &json!({"text": "second"})
    ));
    // A tool never run still starts from its schema; R still refills from it.
    app.apply(Action::FocusTools);
    app.apply(Action::Top);
    app.apply(Action::UseTool);
    assert_eq!(app.panes.composer.tool.as_deref(), Some("upload_file"));
    assert_eq!(shown(&app)["size_bytes"], 5242880);
    app.apply(Action::FocusTools);
    while app.panes.tools.selected().map(|t| t.name.as_str()) != Some("pipeline_wait") {
        app.apply(Action::Down);
    }
    app.apply(Action::UseTool);
    assert_eq!(shown(&app), json!({"polls": 2}));
    app.apply(Action::FocusComposer);
    app.apply(Action::ResetArgs);
    assert_eq!(shown(&app), json!({"polls": 5, "outcome": "success"}));
}

#[test]
fn t_cycles_token_modes_without_a_prompt_and_capital_t_types_a_custom_one() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    app.apply(Action::FocusComposer);
    let mut seen = Vec::new();
    for _ in 0..4 {
        key(&mut app, KeyCode::Char('t'));
        assert!(
            app.overlays.input.is_none(),
            "t never opens a text field (after {seen:?})"
        );
        seen.push(app.panes.composer.token.label());
    }
    assert_eq!(
        seen,
        ["auto integer", "none", "auto string", "auto integer"]
    );
    // T types a custom token; from then on t cycles through it too.
    key(&mut app, KeyCode::Char('T'));
    assert!(app.overlays.input.is_some());
    typed(&mut app, "job-7");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.panes.composer.token.label(), "custom");
    let mut seen = Vec::new();
    for _ in 0..4 {
        key(&mut app, KeyCode::Char('t'));
        assert!(app.overlays.input.is_none());
        seen.push(app.panes.composer.token.label());
    }
    assert_eq!(seen, ["auto string", "auto integer", "none", "custom"]);
}

#[test]
fn the_first_screens_send_hint_works_where_focus_starts() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    app.apply(Action::FocusTools);
    app.apply(Action::Top);
    key(&mut app, KeyCode::Enter);
    // Focus back where a fresh session starts: the empty Progress pane.
    app.apply(Action::FocusProgress);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("send (s)"), "{screen}");
    let effects = key(&mut app, KeyCode::Char('s'));
    assert!(
        matches!(&effects[..], [Effect::Call { tool, .. }] if tool == "upload_file"),
        "{effects:?}"
    );
}

/// At 2026-07-28 a server logs only for requests that ask for a level: a
/// stateless session whose server declares `logging` starts the Composer at
/// `debug`, so the Logs pane shows what the server sends; a handshake
/// session (its server has a default) and the user's own choice are left
/// alone.
#[test]
fn a_stateless_server_that_logs_is_asked_for_every_level() {
    let sc = Scenario::new();
    let init =
        |rev: &str, caps: serde_json::Value| -> mcpscope::protocol::views::InitializeResult {
            serde_json::from_value(json!({
                "protocolVersion": rev,
                "capabilities": caps,
                "serverInfo": {"name": "s", "version": "1"}
            }))
            .unwrap()
        };
    let connected = |i| {
        let mut app = App::new(sc.trace.clone(), AppOptions::default());
        app.on_msg(Msg::Handshake(Ok(i)));
        app
    };
    let logs = json!({"logging": {}, "tools": {}});
    let app = connected(init("2026-07-28", logs.clone()));
    assert_eq!(app.panes.composer.level, Some(LogLevel::Debug));
    let app = connected(init("2025-11-25", logs.clone()));
    assert_eq!(app.panes.composer.level, None, "the server has a default");
    let app = connected(init("2026-07-28", json!({"tools": {}})));
    assert_eq!(app.panes.composer.level, None, "no logging declared");

    // The user's choice (here: back to none) survives another handshake.
    let mut app = connected(init("2026-07-28", logs.clone()));
    while app.panes.composer.level.is_some() {
        app.panes.composer.cycle_level();
    }
    app.on_msg(Msg::Handshake(Ok(init("2026-07-28", logs.clone()))));
    assert_eq!(app.panes.composer.level, None);

    // `--run` calls ask the session's level too.
    let run = mcpscope::tui::app::parse_run("echo {}").unwrap();
    let mut app = App::new(
        sc.trace.clone(),
        AppOptions {
            runs: vec![run],
            ..AppOptions::default()
        },
    );
    app.on_msg(Msg::Handshake(Ok(init("2026-07-28", logs))));
    let fired = app.on_msg(Msg::Tools(Ok(tools())));
    assert!(
        matches!(
            &fired[..],
            [Effect::Call {
                level: Some(LogLevel::Debug),
                ..
            }]
        ),
        "{fired:?}"
    );
}

/// Esc in the custom token's field is a cancel: the token mode the field
/// was opened in comes back with the text, and Enter keeps what was typed.
#[test]
fn esc_in_the_custom_token_field_keeps_the_token_mode_it_had() {
    use mcpscope::tui::panes::composer::TokenMode;
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusComposer);
    let before = app.panes.composer.token;
    assert_ne!(before, TokenMode::Custom);
    app.apply(Action::EditToken);
    typed(&mut app, "mine");
    assert_eq!(
        app.panes.composer.token,
        TokenMode::Custom,
        "typing shows it"
    );
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.panes.composer.token, before);
    assert_eq!(app.panes.composer.custom_token, "");

    app.apply(Action::EditToken);
    typed(&mut app, "mine");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.panes.composer.token, TokenMode::Custom);
    assert_eq!(app.panes.composer.custom_token, "mine");
    // A second Esc cancels that prompt only: the custom token stays.
    app.apply(Action::EditToken);
    typed(&mut app, "x");
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.panes.composer.token, TokenMode::Custom);
    assert_eq!(app.panes.composer.custom_token, "mine");
}

/// A scripted demo: `--run-file` calls (comments and blank lines skipped,
/// an error names its line), `--run-level` for them, `--focus` a pane.
#[test]
fn a_demo_is_scripted_with_a_run_file_a_run_level_and_a_focus() {
    use mcpscope::tui::pane::Pane;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.txt");
    std::fs::write(
        &file,
        "# the demo\n\nupload_file {\"size_bytes\": 1024}\n  echo {\"text\": \"hi\"}\n",
    )
    .unwrap();
    let runs = mcpscope::tui::app::read_run_file(&file).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1], ("echo".to_string(), json!({"text": "hi"})));
    std::fs::write(&file, "echo {}\necho {\n").unwrap();
    let e = mcpscope::tui::app::read_run_file(&file)
        .unwrap_err()
        .to_string();
    assert!(e.contains("calls.txt:2: --run echo"), "{e}");

    let sc = Scenario::new();
    let mut app = App::new(
        sc.trace.clone(),
        AppOptions {
            runs,
            run_level: Some(LogLevel::Warning),
            focus: Some(Pane::Logs),
            ..AppOptions::default()
        },
    );
    assert_eq!(app.shell.focus, Pane::Logs);
    app.on_msg(Msg::Handshake(Ok(init_result())));
    let fired = app.on_msg(Msg::Tools(Ok(tools())));
    assert_eq!(fired.len(), 2);
    for f in &fired {
        assert!(
            matches!(
                f,
                Effect::Call {
                    level: Some(LogLevel::Warning),
                    ..
                }
            ),
            "{f:?}"
        );
    }
    assert_eq!(Pane::named("scope"), Some(Pane::Scope));
    assert_eq!(Pane::named("2"), Some(Pane::Timeline));
    assert_eq!(Pane::named("nope"), None);
}

/// The command preview shows the whole command, wrapped at spaces, however
/// long its arguments: the editor gives up rows for it (down to two), and
/// only then is it cut, with `…`.
#[test]
fn the_command_preview_shows_the_whole_command() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusTools);
    app.apply(Action::Filter);
    typed(&mut app, "echo");
    key(&mut app, KeyCode::Enter);
    app.apply(Action::UseTool);
    app.apply(Action::Edit);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::Left);
    typed(&mut app, &format!("{}TAILMARK", "word ".repeat(60)));
    key(&mut app, KeyCode::Esc);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("TAILMARK"), "{screen}");
    // Cut where there is no room, and said so.
    let small = render(&mut app, 120, 30);
    assert!(small.contains("TAILMARK") || small.contains('…'), "{small}");
    let lines = mcpscope::tui::panes::composer::view::command_lines("ab cd efghijkl", 6);
    assert_eq!(lines, ["ab", "cd", "efghij", "kl"]);
}
