//! The store's unit tests: appending, indexes, eviction, routes.

use super::*;

fn push_in(s: &mut Store, line: &str) -> (u64, Vec<Route>) {
    let mut r = Vec::new();
    let seq = s.append_frame(Dir::In, "stdio", 0, line.as_bytes(), &mut r);
    (seq, r)
}
fn push_out(s: &mut Store, line: &str) -> u64 {
    s.append_frame(Dir::Out, "stdio", 0, line.as_bytes(), &mut Vec::new())
}

#[test]
fn indexes_requests_tokens_levels() {
    let mut s = Store::default();
    let req = push_out(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#,
    );
    let (p1, _) = push_in(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#,
    );
    let (p2, _) = push_in(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2}}"#,
    );
    let (l, _) = push_in(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":"w"}}"#,
    );
    let (bad, _) = push_in(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":"w"}}"#,
    );
    let (resp, routes) = push_in(&mut s, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    let (dup, _) = push_in(&mut s, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    let (unk, _) = push_in(&mut s, r#"{"jsonrpc":"2.0","id":99,"result":{}}"#);

    assert_eq!(
        routes,
        vec![Route::Response {
            id: IdKey::Int(1),
            seq: resp
        }]
    );
    assert_eq!(
        s.token_seqs(&IdKey::Str("t".into())).collect::<Vec<_>>(),
        [req, p1, p2]
    );
    assert_eq!(
        s.token(&IdKey::Str("t".into())).unwrap().request,
        Some(IdKey::Int(1))
    );
    assert_eq!(s.by_level(LogLevel::Warning), &[l]);
    assert_eq!(s.logs(), &[l, bad]);
    assert!(s.problems().contains(&bad));
    let r = s.request(Origin::Client, &IdKey::Int(1)).unwrap();
    assert_eq!(r.response_seq, Some(resp));
    assert_eq!(r.seqs, vec![req, resp, dup]);
    assert_eq!(
        s.get(dup).unwrap().flags & flags::DUPLICATE,
        flags::DUPLICATE
    );
    assert_eq!(
        s.get(unk).unwrap().flags & flags::UNKNOWN_ID,
        flags::UNKNOWN_ID
    );
    assert_eq!(s.get(resp).unwrap().method, Some("tools/call"));
}

#[test]
fn late_response_after_cancel_and_server_requests() {
    let mut s = Store::default();
    push_out(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}"#,
    );
    push_out(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#,
    );
    let (late, _) = push_in(&mut s, r#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
    assert_eq!(s.get(late).unwrap().flags & flags::LATE, flags::LATE);
    // A server request with the same id as ours is a different request.
    let (sr, routes) = push_in(&mut s, r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#);
    assert_eq!(
        routes,
        vec![Route::ServerRequest {
            id: IdKey::Str("a".into()),
            seq: sr
        }]
    );
    let answer = push_out(&mut s, r#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
    assert_eq!(
        s.request(Origin::Server, &IdKey::Str("a".into()))
            .unwrap()
            .response_seq,
        Some(answer)
    );
}

#[test]
fn batches_garbage_and_every_byte_kept() {
    let mut s = Store::default();
    let lines: Vec<&[u8]> = vec![
        br#"[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}},{"jsonrpc":"2.0","id":5,"method":"ping"}]"#,
        b"garbage \x1b[2J",
        b"\xff\xfe",
        b"",
    ];
    let mut routes = Vec::new();
    for l in &lines {
        s.append_frame(Dir::In, "stdio", 7, l, &mut routes);
    }
    assert_eq!(s.len(), 6);
    assert_eq!(s.get(0).unwrap().kind, FrameKind::Batch);
    assert_eq!(s.get(1).unwrap().flags, flags::IN_BATCH);
    assert_eq!(s.get(2).unwrap().method, Some("ping"));
    assert_eq!(s.get(3).unwrap().bytes, lines[1]);
    assert_eq!(s.get(4).unwrap().kind, FrameKind::InvalidUtf8);
    assert_eq!(s.get(4).unwrap().bytes, lines[2]);
    assert_eq!(s.get(5).unwrap().kind, FrameKind::Empty);
    assert_eq!(routes.len(), 1);
    assert_eq!(s.problems(), &[3, 4]);
}

#[test]
fn eviction_is_counted_and_reads_stay_safe() {
    let mut s = Store::new(StoreLimits {
        max_bytes: 3 * CHUNK_BYTES,
    });
    let line = vec![b'x'; 64 * 1024];
    for _ in 0..400 {
        s.append_stderr("stdio", 0, &line);
    }
    assert!(s.evicted() > 0);
    assert_eq!(s.first_seq(), s.evicted());
    assert!(s.get(0).is_none());
    assert_eq!(s.get(399).unwrap().bytes.len(), line.len());
    assert!(s.mem_bytes() <= 4 * CHUNK_BYTES);
    assert_eq!(s.stderr_lines().first(), Some(&s.first_seq()));
    assert_eq!(s.range(0, 1000).count() as u64, s.len());
    // Ranges cross chunk boundaries in order, from any start.
    let first = s.first_seq();
    let seqs: Vec<u64> = s.range(first + 5, 390).map(|e| e.seq).collect();
    assert_eq!(seqs, (first + 5..390).collect::<Vec<_>>());
    assert_eq!(s.range(390, 390).count(), 0);
    assert_eq!(
        s.range(399, 10_000).map(|e| e.seq).collect::<Vec<_>>(),
        vec![399]
    );
}

#[test]
fn channel_names_go_with_the_last_event_naming_them() {
    let mut s = Store::new(StoreLimits {
        max_bytes: 3 * CHUNK_BYTES,
    });
    let line = vec![b'x'; 1024];
    let n = 50_000u64;
    for i in 0..n {
        // One channel per exchange, as a proxy's host opens them.
        s.append_stderr(&format!("post:{i}"), 0, &line);
        s.append_stderr("stdio", 0, &line);
    }
    assert!(s.evicted() > 0);
    // Only names of stored events are held, and each still reads right.
    assert!(
        s.channels.len() as u64 <= s.len() / 2 + 2,
        "{} names for {} events",
        s.channels.len(),
        s.len()
    );
    for e in s.range(0, u64::MAX) {
        let want = if e.seq % 2 == 1 {
            "stdio".to_string()
        } else {
            format!("post:{}", e.seq / 2)
        };
        assert_eq!(e.channel, want, "seq {}", e.seq);
    }
}

#[test]
fn method_names_go_with_the_last_event_naming_them() {
    let mut s = Store::new(StoreLimits {
        max_bytes: 3 * CHUNK_BYTES,
    });
    let n = 50_000u64;
    let pad = "x".repeat(1024);
    for i in 0..n {
        // A server inventing a method per notification.
        let frame = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/made-up-{i}","params":{{"pad":"{pad}"}}}}"#
        );
        s.append_frame(Dir::In, "stdio", 0, frame.as_bytes(), &mut Vec::new());
        let known = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{pad}"}}}}"#
        );
        s.append_frame(Dir::In, "stdio", 0, known.as_bytes(), &mut Vec::new());
    }
    assert!(s.evicted() > 0);
    assert!(
        s.methods.len() as u64 <= s.len() / 2 + 4,
        "{} names for {} events",
        s.methods.len(),
        s.len()
    );
    for e in s.range(0, u64::MAX) {
        let want = if e.seq % 2 == 1 {
            "notifications/message".to_string()
        } else {
            format!("notifications/made-up-{}", e.seq / 2)
        };
        assert_eq!(e.method, Some(want.as_str()), "seq {}", e.seq);
    }
}

#[test]
fn a_large_owned_frame_is_kept_in_its_own_buffer_not_copied() {
    let mut s = Store::default();
    push_out(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
    );
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{}"}}]}}}}"#,
        "y".repeat(CHUNK_BYTES)
    )
    .into_bytes();
    let (buffer, len) = (frame.as_ptr(), frame.len());
    let seq = s.append_recorded_owned(Dir::In, "stdio", 5, frame, false);
    let ev = s.get(seq).unwrap();
    assert_eq!(
        ev.bytes.as_ptr(),
        buffer,
        "the store holds the frame's own buffer"
    );
    assert_eq!(ev.bytes.len(), len);
    assert_eq!(ev.kind, FrameKind::Response);
    let req = s.request(Origin::Client, &IdKey::Int(1)).unwrap();
    assert_eq!(
        req.response_seq,
        Some(seq),
        "indexed as the answer to request 1"
    );
    // What follows is stored as usual, and everything reads back.
    let after = push_in(&mut s, r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"z"}}"#).0;
    assert_eq!(s.get(after).unwrap().method, Some("notifications/message"));
    assert_eq!(s.get(seq).unwrap().bytes.len(), len);
    // A small owned frame is copied into the chunk like any other.
    let small = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"s"}}"#.to_vec();
    let seq = s.append_recorded_owned(Dir::In, "stdio", 6, small.clone(), false);
    assert_eq!(s.get(seq).unwrap().bytes, small.as_slice());
}
