//! Resource subscriptions in both eras against the demo server's fixtures
//! (`--conformance`), with `test_touch_resource` marking a resource changed:
//! before 2026-07-28 through `resources/subscribe`, after it through one
//! `subscriptions/listen` stream (`resourceSubscriptions`) that a new set of
//! URIs replaces. Over stdio and Streamable HTTP.

use crate::support::BIN;
use crate::support::http::start_reporting;
use mcpscope::client::{ClientOptions, EraChoice, Limits, Session, TokenPolicy};
use mcpscope::trace::{Dir, MonotonicClock, Store, Trace};
use mcpscope::transport::http::Flavor;
use mcpscope::transport::stdio::CommandSpec;
use serde_json::{Value, json};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

const WATCHED: &str = "test://watched-resource";
const TEXT: &str = "test://static-text";

fn limits() -> Limits {
    Limits {
        idle: Some(Duration::from_secs(20)),
        max: Some(Duration::from_secs(30)),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn stdio(era: EraChoice, trace: &Trace) -> Arc<Session> {
    let spec = CommandSpec {
        argv: vec![BIN.into(), "demo-server".into(), "--conformance".into()],
        ..Default::default()
    };
    let opts = ClientOptions {
        era,
        ..ClientOptions::default()
    };
    Session::spawn_stdio(&spec, opts, trace.clone()).unwrap()
}

fn http(url: &str, era: EraChoice, trace: &Trace) -> Arc<Session> {
    let opts = ClientOptions {
        era,
        ..ClientOptions::default()
    };
    Session::connect_http(url, &[], Flavor::Streamable, opts, trace.clone(), None).unwrap()
}

/// `notifications/resources/updated` received so far: (uri, channel, subscriptionId).
fn updates(trace: &Trace) -> Vec<(String, String, Value)> {
    let store = trace.read();
    store
        .range(store.first_seq(), store.next_seq())
        .filter(|e| e.dir == Dir::In && e.method == Some("notifications/resources/updated"))
        .map(|e| {
            let v: Value = serde_json::from_slice(e.bytes).unwrap();
            (
                v["params"]["uri"].as_str().unwrap_or("").to_owned(),
                e.channel.to_owned(),
                v.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
                    .cloned()
                    .unwrap_or(Value::Null),
            )
        })
        .collect()
}

/// Wait until `n` updates arrived (they may travel on another stream than
/// the call's answer); fail after a deadline.
async fn wait_updates(trace: &Trace, n: usize) -> Vec<(String, String, Value)> {
    let mut changed = trace.subscribe();
    let wait = async {
        loop {
            let got = updates(trace);
            if got.len() >= n {
                return got;
            }
            changed.changed().await.unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(20), wait)
        .await
        .unwrap_or_else(|_| panic!("{n} updates did not arrive: {:?}", updates(trace)))
}

async fn touch(s: &Session, uri: &str) -> String {
    let out = s
        .call_tool(
            "test_touch_resource",
            &json!({"uri": uri}),
            &TokenPolicy::None,
            limits(),
        )
        .await
        .unwrap();
    out.reply.result["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The listen ids of the `subscriptions/listen` requests sent, in order.
fn listen_ids(trace: &Trace) -> Vec<Value> {
    let store = trace.read();
    store
        .range(store.first_seq(), store.next_seq())
        .filter(|e| e.dir == Dir::Out && e.method == Some("subscriptions/listen"))
        .map(|e| serde_json::from_slice::<Value>(e.bytes).unwrap()["id"].clone())
        .collect()
}

async fn stateless_round(s: &Session, trace: &Trace, over_http: bool) {
    let init = s.start().await.unwrap();
    assert_eq!(init.protocol_version, "2026-07-28");
    // Nobody watches yet.
    assert!(touch(s, WATCHED).await.contains("0 listen stream(s) told"));
    let granted = s.listen_resources(vec![WATCHED.into()]).await.unwrap();
    assert_eq!(granted, vec![WATCHED.to_owned()]);
    let said = touch(s, WATCHED).await;
    assert!(said.contains("1 listen stream(s) told"), "{said}");
    let got = wait_updates(trace, 1).await;
    let first = listen_ids(trace)[0].clone();
    assert_eq!(got[0].0, WATCHED);
    assert_eq!(got[0].2, first, "the stream's subscription id");
    if over_http {
        assert!(got[0].1.starts_with("listen:"), "{:?}", got[0]);
    }
    // A new set replaces the stream: one update per touch, on the new one.
    let granted = s
        .listen_resources(vec![WATCHED.into(), TEXT.into()])
        .await
        .unwrap();
    assert_eq!(granted, vec![TEXT.to_owned(), WATCHED.to_owned()]);
    let second = listen_ids(trace)[1].clone();
    touch(s, TEXT).await;
    let got = wait_updates(trace, 2).await;
    assert_eq!((got[1].0.as_str(), &got[1].2), (TEXT, &second));
    touch(s, WATCHED).await;
    let got = wait_updates(trace, 3).await;
    assert_eq!((got[2].0.as_str(), &got[2].2), (WATCHED, &second));
    // The old stream was closed when the new one was acknowledged.
    {
        let store = trace.read();
        let cancels = store
            .range(store.first_seq(), store.next_seq())
            .filter(|e| e.method == Some("cancel") || e.method == Some("notifications/cancelled"))
            .count();
        assert_eq!(cancels, 1, "the first stream closed once");
    }
    // An empty set closes it; touches reach nobody of ours.
    assert!(s.listen_resources(Vec::new()).await.unwrap().is_empty());
    let said = touch(s, WATCHED).await;
    if !over_http {
        // Over HTTP the server learns of the closed stream when its
        // connection drops, which may be after this touch.
        assert!(said.contains("0 listen stream(s) told"), "{said}");
    }
    assert_eq!(updates(trace).len(), 3, "nothing after the stream closed");
}

#[test]
fn stateless_stdio_watches_resources_through_listen() {
    let trace = Trace::new(Store::default(), MonotonicClock::new());
    runtime().block_on(async {
        let s = stdio(EraChoice::Modern, &trace);
        stateless_round(&s, &trace, false).await;
        s.shutdown().await;
    });
}

#[test]
fn stateless_http_watches_resources_through_listen() {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0", "--conformance"]);
    let (_srv, port) = start_reporting(cmd);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let trace = Trace::new(Store::default(), MonotonicClock::new());
    runtime().block_on(async {
        let s = http(&url, EraChoice::Modern, &trace);
        stateless_round(&s, &trace, true).await;
        s.shutdown().await;
    });
}

#[test]
fn handshake_subscriptions_get_updates_on_the_session() {
    let trace = Trace::new(Store::default(), MonotonicClock::new());
    runtime().block_on(async {
        let s = stdio(EraChoice::Handshake, &trace);
        s.start().await.unwrap();
        assert!(touch(&s, WATCHED).await.contains("0 session(s) told"));
        s.request(
            "resources/subscribe",
            Some(json!({"uri": WATCHED})),
            limits(),
        )
        .await
        .unwrap();
        assert!(touch(&s, WATCHED).await.contains("1 session(s) told"));
        let got = updates(&trace);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].0.as_str(), &got[0].2), (WATCHED, &Value::Null));
        s.request(
            "resources/unsubscribe",
            Some(json!({"uri": WATCHED})),
            limits(),
        )
        .await
        .unwrap();
        assert!(touch(&s, WATCHED).await.contains("0 session(s) told"));
        assert_eq!(updates(&trace).len(), 1);
        s.shutdown().await;
    });
}
