//! The Composer's copied command (`y`: the equivalent `mcpscope call`, put
//! on the clipboard): whatever the server named its tool and whatever the
//! user typed, the command carries no raw control or invisible character —
//! pasted into a terminal, an escape could end bracketed paste and a newline
//! run what follows — and bash reads it back as exactly the arguments meant.

use crate::support::*;
use mcpscope::tui::format::shell_quote;
use mcpscope::tui::panes::composer::{ServerCli, TokenMode};

/// Raw characters a terminal would act on or hide.
fn raw_controls(s: &str) -> Vec<char> {
    s.chars()
        .filter(|&c| c.is_control() || mcpscope::protocol::sanitize::is_invisible(c))
        .collect()
}

/// The words bash makes of `cmd` (which starts `mcpscope `), run by a real
/// bash with `mcpscope` defined to print its arguments.
fn bash_words(cmd: &str) -> Vec<String> {
    let script = format!("mcpscope() {{ printf '%s\\0' \"$@\"; }}\n{cmd}\n");
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &script])
        .env("LC_ALL", "C")
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{out:?}");
    let mut words: Vec<String> = out
        .stdout
        .split(|&b| b == 0)
        .map(|w| String::from_utf8(w.to_vec()).unwrap())
        .collect();
    words.pop(); // after the last NUL
    words
}

#[test]
fn the_copied_command_quotes_control_characters_and_reads_back_exactly() {
    let sc = mid_progress();
    let mut app = app(&sc);
    // A server's tool name that would end a bracketed paste and run a command.
    let tool = "echo\u{1b}[201~\nrm -rf ~\u{9b}\u{202E}";
    app.on_msg(Msg::Tools(Ok(vec![json!({
        "name": tool,
        "inputSchema": {"type": "object", "properties": {}}
    })])));
    app.sync();
    app.apply(Action::FocusTools);
    app.apply(Action::Top);
    app.apply(Action::UseTool);
    assert_eq!(app.panes.composer.tool.as_deref(), Some(tool));
    // What the user typed, and the server's command line, may carry them too.
    app.panes.composer.token = TokenMode::Custom;
    app.panes.composer.custom_token = "tok\u{7}en's".into();
    app.shell.server_cli = ServerCli {
        options: format!("-e {}", shell_quote("KEY=a\tb\r")),
        command: ["/srv/run\u{1b}", "--name=x\u{200B}y"]
            .map(shell_quote)
            .join(" "),
    };

    let copied = app.apply(Action::CopyCommand);
    let [Effect::Copy { text: cmd, .. }] = copied.as_slice() else {
        panic!("one copy effect: {copied:?}");
    };
    assert_eq!(raw_controls(cmd), Vec::<char>::new(), "{cmd:?}");
    assert_eq!(
        bash_words(cmd),
        [
            "call",
            "-e",
            "KEY=a\tb\r",
            "--tool",
            tool,
            "--token",
            "tok\u{7}en's",
            "--",
            "/srv/run\u{1b}",
            "--name=x\u{200B}y",
        ]
    );
}

#[test]
fn plain_and_single_quoted_words_stay_as_they_were() {
    assert_eq!(shell_quote("upload_file"), "upload_file");
    assert_eq!(shell_quote(r#"{"a": 'b'}"#), r#"'{"a": '\''b'\''}'"#);
    assert_eq!(shell_quote("héllo wörld"), "'héllo wörld'");
    assert_eq!(shell_quote(""), "''");
    for word in ["a b", "$HOME", "`id`", "héllo", "", "x'y\"z\\"] {
        assert_eq!(
            bash_words(&format!("mcpscope {}", shell_quote(word))),
            [word]
        );
    }
}
