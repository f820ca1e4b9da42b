use super::super::recording::{Exchange, Step};
use super::*;

#[test]
fn a_recorded_frame_is_written_with_the_hosts_id_as_setting_it_would() {
    let cases = [
        (json!({"jsonrpc": "2.0", "id": 7, "result": {}}), vec!["id"]),
        (json!({"jsonrpc": "2.0", "error": {"code": 1}}), vec!["id"]),
        (json!({"a": 1, "b": 2}), vec!["zz"]),
        (json!({"b": 2}), vec!["a"]),
        (
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1, "progressToken": "old", "total": 2}}),
            vec!["params", PROGRESS_TOKEN],
        ),
        (
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}),
            vec!["params", PROGRESS_TOKEN],
        ),
        (
            json!({"jsonrpc": "2.0", "method": "m"}),
            vec!["params", "x"],
        ),
    ];
    let with = json!({"host": ["id", 1]});
    for (v, path) in cases {
        let mut set = v.clone();
        let mut at = &mut set;
        for k in &path {
            at = &mut at[*k];
        }
        *at = with.clone();
        assert_eq!(
            String::from_utf8(frame_with(&v, &path, &with)).unwrap(),
            set.to_string(),
            "{v} at {path:?}"
        );
    }
}

fn step(t_ms: u64, kind: StepKind) -> Step {
    Step {
        t_us: t_ms * 1000,
        standalone: false,
        kind,
    }
}

fn recording() -> Arc<Recording> {
    let progress = |p: u64| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "rec", "progress": p}});
    Arc::new(Recording {
        exchanges: vec![Exchange {
            seq: 1,
            line: 2,
            t_us: 1_000_000,
            method: "tools/call".into(),
            id: Some(json!(5)),
            params: Some(json!({"name": "a"})),
            scope: 0,
            steps: vec![
                step(1_100, StepKind::Progress(progress(1))),
                step(
                    1_300,
                    StepKind::Request {
                        frame: json!({"jsonrpc": "2.0", "id": "s", "method": "elicitation/create", "params": {}}),
                        answer_t_us: Some(1_400_000),
                    },
                ),
                step(1_500, StepKind::Progress(progress(2))),
                step(
                    1_600,
                    StepKind::Response(json!({"jsonrpc": "2.0", "id": 5, "result": {}})),
                ),
            ],
        }],
        unattributed: 0,
        sessions: Vec::new(),
    })
}

/// Frames as (ms since start, JSON), read until the response.
async fn drain(rx: &mut mpsc::Receiver<Wire>, start: Instant, until: usize) -> Vec<(u128, Value)> {
    let mut got = Vec::new();
    while got.len() < until {
        let b = match rx.recv().await.expect("a frame") {
            // The host has taken everything so far.
            Wire::Barrier(done) => {
                let _ = done.send(());
                continue;
            }
            w => w.to_vec(),
        };
        got.push((
            start.elapsed().as_millis(),
            serde_json::from_slice(&b).unwrap(),
        ));
    }
    got
}

#[tokio::test(start_paused = true)]
async fn frames_keep_their_gaps_with_the_hosts_id_and_token_and_wait_for_answers() {
    let (tx, mut rx) = mpsc::channel(16);
    let conn = Conn::new(
        recording(),
        Pace::new(1.0).unwrap(),
        Out::Stream(tx.clone()),
    );
    let start = Instant::now();
    let req = json!({"jsonrpc": "2.0", "id": "h1", "method": "tools/call", "params": {"name": "a", "_meta": {"progressToken": 42}}});
    assert_eq!(
        conn.handle(req, Out::Stream(tx.clone())).await,
        Handled::Request
    );
    let first = drain(&mut rx, start, 2).await;
    assert_eq!(first[0].0, 100);
    assert_eq!(first[0].1["params"]["progressToken"], 42);
    assert_eq!(first[1].0, 300);
    assert_eq!(first[1].1["id"], "mock-1");
    // Nothing more until the host answers, however long it takes.
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert!(rx.try_recv().is_err());
    conn.handle(
        json!({"jsonrpc": "2.0", "id": "mock-1", "result": {}}),
        Out::Stream(tx.clone()),
    )
    .await;
    let rest = drain(&mut rx, start, 2).await;
    // 100 ms after the answer (recorded 1.4 s → 1.5 s), then 100 ms more.
    assert_eq!((rest[0].0, rest[1].0), (10_400, 10_500));
    assert_eq!(
        rest[1].1,
        json!({"jsonrpc": "2.0", "id": "h1", "result": {}})
    );
}

#[tokio::test(start_paused = true)]
async fn speed_scales_and_zero_sends_at_once_and_no_token_no_progress() {
    for (speed, gaps) in [(2.0, vec![150, 250]), (0.0, vec![0, 0])] {
        let (tx, mut rx) = mpsc::channel(16);
        let conn = Conn::new(
            recording(),
            Pace::new(speed).unwrap(),
            Out::Stream(tx.clone()),
        );
        let start = Instant::now();
        let req =
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}});
        conn.handle(req, Out::Stream(tx.clone())).await;
        let ask = drain(&mut rx, start, 1).await;
        assert_eq!(
            ask[0].1["method"], "elicitation/create",
            "no token: no progress"
        );
        conn.handle(
            json!({"jsonrpc": "2.0", "id": "mock-1", "result": {}}),
            Out::Stream(tx.clone()),
        )
        .await;
        let rest = drain(&mut rx, start, 1).await;
        assert_eq!(vec![ask[0].0, rest[0].0], gaps);
    }
    assert!(Pace::new(-1.0).is_err() && Pace::new(f64::NAN).is_err() && Pace::new(1e9).is_err());
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_request_stops_playing() {
    let (tx, mut rx) = mpsc::channel(16);
    let conn = Conn::new(
        recording(),
        Pace::new(1.0).unwrap(),
        Out::Stream(tx.clone()),
    );
    let req = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "a", "_meta": {"progressToken": "t"}}});
    conn.handle(req, Out::Stream(tx.clone())).await;
    assert!(rx.recv().await.is_some());
    // Cancelled while it waits for the answer to its elicitation.
    let ask: Value = serde_json::from_slice(&rx.recv().await.unwrap().to_vec()).unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(lock(&conn.pending).len(), 1);
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}});
    assert_eq!(
        conn.handle(cancel, Out::Stream(tx.clone())).await,
        Handled::Accepted
    );
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(rx.try_recv().is_err());
    assert!(lock(&conn.running).is_empty());
    assert!(lock(&conn.pending).is_empty(), "the question is forgotten");
}

#[tokio::test(start_paused = true)]
async fn a_large_response_goes_out_as_recorded_with_only_the_id_changed() {
    use std::io::Write;
    // Keys out of sorted order and spaces, as a server may write them:
    // served as recorded, not re-encoded, with the host's id in place.
    let text = "y".repeat(BATCH_BYTES + 10);
    let recorded = format!(
        r#"{{"result": {{"content": [{{"type": "text", "text": "{text}"}}]}}, "jsonrpc": "2.0", "id" : 1 }}"#
    );
    let mut f = tempfile::NamedTempFile::new().unwrap();
    writeln!(
        f,
        r#"{{"mcpscope_trace":1,"version":"t","started":"now","server":{{}}}}"#
    )
    .unwrap();
    writeln!(
        f,
        r#"{{"seq":0,"t":0.0,"dir":"out","ch":"stdio","json":{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"big"}}}}}}"#
    )
    .unwrap();
    writeln!(
        f,
        r#"{{"seq":1,"t":0.1,"dir":"in","ch":"stdio","json":{recorded}}}"#
    )
    .unwrap();
    let rec = super::super::recording::load(f.path()).unwrap();
    assert!(matches!(
        rec.exchanges[0].steps[0].kind,
        StepKind::Reply { .. }
    ));
    let (tx, mut rx) = mpsc::channel(16);
    let conn = Conn::new(
        Arc::new(rec),
        Pace::new(0.0).unwrap(),
        Out::Stream(tx.clone()),
    );
    let req = json!({"jsonrpc": "2.0", "id": "host-7", "method": "tools/call", "params": {"name": "big"}});
    conn.handle(req, Out::Stream(tx.clone())).await;
    let got = rx.recv().await.unwrap();
    assert!(
        matches!(got, Wire::Parts(_)),
        "written around the id, not copied"
    );
    let want = recorded.replace(r#""id" : 1 }"#, r#""id" : "host-7" }"#);
    assert!(
        got.to_vec() == want.as_bytes(),
        "the recorded bytes, the host's id"
    );
}

#[tokio::test(start_paused = true)]
async fn frames_of_one_instant_go_out_in_one_write() {
    let log = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}});
    let rec = Arc::new(Recording {
        exchanges: vec![Exchange {
            seq: 1,
            line: 2,
            t_us: 0,
            method: "tools/call".into(),
            id: Some(json!(1)),
            params: None,
            scope: 0,
            steps: vec![
                step(10, StepKind::Frame(log.clone())),
                step(
                    10,
                    StepKind::Response(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
                ),
                step(10, StepKind::Frame(log.clone())),
                step(20, StepKind::Frame(log.clone())),
            ],
        }],
        unattributed: 0,
        sessions: Vec::new(),
    });
    let (tx, mut rx) = mpsc::channel(16);
    let conn = Conn::new(rec, Pace::new(1.0).unwrap(), Out::Stream(tx.clone()));
    let req = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call"});
    conn.handle(req, Out::Stream(tx.clone())).await;
    let first = rx.recv().await.unwrap().to_vec();
    let lines: Vec<Value> = first
        .split(|b| *b == b'\n')
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(
        lines.len(),
        3,
        "the log, the response and the late log of 10 ms"
    );
    assert_eq!(lines[1]["id"], 4);
    let second: Value = serde_json::from_slice(&rx.recv().await.unwrap().to_vec()).unwrap();
    assert_eq!(second, log);
}
