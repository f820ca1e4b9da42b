//! A session whose user answers the server (what the TUI runs): elicitation
//! and sampling requests reach the UI through `take_asks` and go back with
//! `answer_server`; roots edited by the user are offered with
//! `notifications/roots/list_changed`. Against server-everything.

use crate::support;

use mcpscope::client::{ClientOptions, Limits, Session, TokenPolicy};
use mcpscope::trace::{MonotonicClock, Store, Trace};
use mcpscope::transport::stdio::CommandSpec;
use serde_json::{Value, json};
use std::time::Duration;

fn text(v: &Value) -> String {
    v["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn the_user_answers_elicitation_and_sampling_and_edits_roots() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let trace = Trace::new(Store::default(), MonotonicClock::new());
    rt.block_on(async {
        let spec = CommandSpec {
            argv: vec![support::everything().display().to_string(), "stdio".into()],
            ..Default::default()
        };
        let opts = ClientOptions {
            ask_user: true,
            roots: vec!["file:///first".into()],
            ..ClientOptions::default()
        };
        let session = Session::spawn_stdio(&spec, opts, trace.clone()).unwrap();
        let init = session.start().await.unwrap();
        assert_eq!(init.protocol_version, "2025-11-25");
        let mut asks = session.take_asks().expect("the asks, once");
        assert!(session.take_asks().is_none());
        let limits = Limits {
            idle: Some(Duration::from_secs(30)),
            max: Some(Duration::from_secs(60)),
        };

        // An elicitation: the call waits while the user fills the form.
        let s = session.clone();
        let call = tokio::spawn(async move {
            s.call_tool(
                "trigger-elicitation-request",
                &json!({}),
                &TokenPolicy::None,
                limits,
            )
            .await
        });
        let ask = asks.recv().await.unwrap();
        assert_eq!(ask.method, "elicitation/create");
        assert!(ask.params["requestedSchema"]["properties"]["name"].is_object());
        session
            .answer_server(
                &ask.id,
                Ok(json!({"action": "accept", "content": {"name": "Grace", "check": true}})),
            )
            .unwrap();
        let out = call.await.unwrap().unwrap();
        let t = text(&out.reply.result);
        assert!(t.contains("- Name: Grace"), "{t}");

        // Sampling, refused by the user.
        let s = session.clone();
        let call = tokio::spawn(async move {
            s.call_tool(
                "trigger-sampling-request",
                &json!({"prompt": "hi"}),
                &TokenPolicy::None,
                limits,
            )
            .await
        });
        let ask = asks.recv().await.unwrap();
        assert_eq!(ask.method, "sampling/createMessage");
        session
            .answer_server(&ask.id, Err((-1, "User rejected sampling request".into())))
            .unwrap();
        let out = call.await.unwrap().unwrap();
        assert!(out.is_error(), "{}", out.reply.result);

        // Roots: the edited list is announced, and the server asks again.
        let before = session
            .call_tool("get-roots-list", &json!({}), &TokenPolicy::None, limits)
            .await
            .unwrap();
        assert!(text(&before.reply.result).contains("file:///first"));
        session
            .set_roots(vec!["file:///second".into(), "file:///third".into()])
            .unwrap();
        // The server re-reads roots on the change notification; poll the tool
        // until it shows them (bounded by the attempts, not by sleeping).
        let mut seen = String::new();
        for _ in 0..50 {
            let after = session
                .call_tool("get-roots-list", &json!({}), &TokenPolicy::None, limits)
                .await
                .unwrap();
            seen = text(&after.reply.result);
            if seen.contains("file:///third") {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert!(
            seen.contains("file:///second") && seen.contains("file:///third"),
            "{seen}"
        );
        session.shutdown().await;
    });
    let store = trace.read();
    let sent: Vec<String> = store
        .range(0, store.next_seq())
        .filter(|e| e.dir == mcpscope::trace::Dir::Out)
        .filter_map(|e| e.method.map(str::to_string))
        .collect();
    assert!(
        sent.iter().any(|m| m == "notifications/roots/list_changed"),
        "{sent:?}"
    );
}
