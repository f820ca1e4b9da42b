//! Tests across the trace's parts: the store's indexes as appends and
//! eviction leave them, and the recorder and reader together (what is
//! written reads back byte for byte). Here, not in one of the parts, so
//! no part names another only to be tested.

use super::reader::read_trace;
use super::record::*;
use super::store::{Dir, Origin, Store, StoreLimits};
use std::io::{self, Write};

mod indexes {
    use super::*;

    use crate::protocol::id::IdKey;

    fn push(s: &mut Store, dir: Dir, line: &str) -> u64 {
        s.append_frame(dir, "stdio", 0, line.as_bytes(), &mut Vec::new())
    }

    fn progress(token: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"{token}","progress":1}}}}"#
        )
    }

    #[test]
    fn distinct_tokens_are_counted_in_the_bound_and_pruned_with_their_events() {
        let max = 16 << 20;
        let mut s = Store::new(StoreLimits { max_bytes: max });
        push(
            &mut s,
            Dir::Out,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"mine"}}}"#,
        );
        let n = 300_000u64;
        let mut appended = 1;
        let mut peak = 0;
        for i in 0..n {
            push(&mut s, Dir::In, &progress(&format!("t{i}")));
            appended += 1;
            if i % 10 == 0 {
                // Server requests and logs grow the other indexes.
                push(
                    &mut s,
                    Dir::In,
                    &format!(r#"{{"jsonrpc":"2.0","id":"s{i}","method":"ping"}}"#),
                );
                push(
                    &mut s,
                    Dir::In,
                    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
                );
                appended += 2;
            }
            peak = peak.max(s.total_bytes());
        }
        assert!(s.evicted() > 0);
        assert_eq!(s.first_seq(), s.evicted());
        assert_eq!(s.len() + s.evicted(), appended, "every frame is counted");
        // Overshoot is at most the last growth of one container.
        assert!(peak <= max + max / 2, "peak {peak} over bound {max}");
        assert!(s.index_bytes() > 0);
        // Only tokens with a stored event stay, and ours (still in flight).
        assert!(s.token_count() as u64 <= s.len() + 1);
        let (tokens, requests) = s.pruned();
        assert!(tokens > 0 && requests > 0, "pruned {tokens} {requests}");
        assert!(s.token(&IdKey::Str("mine".into())).is_some());
        assert!(s.token(&IdKey::Str("t0".into())).is_none());
        assert!(
            s.request(Origin::Server, &IdKey::Str("s0".into()))
                .is_none()
        );
        let last = IdKey::Str(format!("t{}", n - 1).into());
        assert_eq!(s.token_seqs(&last).count(), 1);
        assert!(s.logs().len() as u64 <= s.len());
        assert_eq!(s.logs().first().map(|l| *l >= s.first_seq()), Some(true));
        // Reused slots never confuse a stored event's token.
        let first = s.first_seq();
        for ev in s.range(first, s.next_seq()) {
            if let Some(p) = ev.progress {
                let t = s
                    .token_by_slot(p.slot)
                    .expect("a stored event's token is indexed");
                assert_eq!(t.serial, p.serial);
                assert_eq!(t.seqs.last(), Some(ev.seq));
            }
        }
    }

    #[test]
    fn our_answered_request_lets_its_token_go() {
        let mut s = Store::new(StoreLimits { max_bytes: 8 << 20 });
        push(
            &mut s,
            Dir::Out,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"mine"}}}"#,
        );
        push(&mut s, Dir::In, &progress("mine"));
        push(&mut s, Dir::In, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        let filler = "x".repeat(4000);
        for _ in 0..10_000 {
            s.append_stderr("stdio", 0, filler.as_bytes());
        }
        assert!(s.first_seq() > 3);
        assert!(s.token(&IdKey::Str("mine".into())).is_none());
        assert!(s.request(Origin::Client, &IdKey::Int(1)).is_none());
        assert_eq!(s.stderr_lines().len() as u64, s.len());
    }

    #[test]
    fn received_telemetry_is_indexed_live_and_recorded_and_pruned() {
        let mut s = Store::new(StoreLimits { max_bytes: 8 << 20 });
        let log = serde_json::json!({"event": "otel-log", "time_ns": 1, "severity_number": 9,
            "level": "info", "body": "b"});
        let span = br#"{"event":"otel-span","name":"n","trace_id":"t","span_id":"s","kind":"server","start_ns":1,"end_ns":2,"status":"unset"}"#;
        let a = s.append_meta("otel", 0, &log);
        let b = s.append_recorded(Dir::Meta, "otel", 0, span, false);
        s.append_meta(
            "stdio",
            0,
            &serde_json::json!({"event": "spawn", "argv": [], "pid": 1}),
        );
        assert_eq!((s.otel_logs(), s.otel_spans()), (&[a][..], &[b][..]));
        let filler = "x".repeat(4000);
        for _ in 0..10_000 {
            s.append_stderr("stdio", 0, filler.as_bytes());
        }
        assert!(s.first_seq() > b);
        assert!(s.otel_logs().is_empty() && s.otel_spans().is_empty());
    }
}

mod recording {
    use super::*;

    use serde_json::json;

    #[test]
    fn a_writer_that_does_not_keep_up_never_blocks_ingest() {
        use std::io::Read;
        // Should ingest ever wait for the disk again, this test would hang:
        // end it with a message instead.
        std::thread::spawn(|| {
            std::thread::sleep(std::time::Duration::from_secs(120));
            eprintln!("ingest blocked on a recording that nobody reads");
            std::process::abort();
        });
        let (mut reader, writer) = std::io::pipe().unwrap();
        let mut store = Store::default();
        store.set_recorder(Recorder::new(Box::new(writer), &json!({"mcpscope_trace": 1})).unwrap());
        // 4 MB while nobody reads the pipe, which holds 64 KiB: an inline
        // writer blocks on the first batches.
        let frame = vec![b'x'; 4096];
        for i in 0..1000 {
            store.append_frame(Dir::In, "stdio", i, &frame, &mut Vec::new());
            store.end_batch();
        }
        assert_eq!(store.recorder_error(), None);
        let drain = std::thread::spawn(move || {
            let mut all = Vec::new();
            reader.read_to_end(&mut all).map(|_| all)
        });
        // Finishing writes everything held back and closes the file.
        assert_eq!(store.finish_recording(), None);
        let all = drain.join().unwrap().unwrap();
        let lines = all.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count();
        assert_eq!(lines, 1 + 1000, "the header and every event");
    }

    #[test]
    fn the_backlog_counts_batches_until_they_are_written() {
        // A file that takes one write each time it is told to.
        struct Gated(std::sync::Mutex<std::sync::mpsc::Receiver<()>>);
        impl Write for Gated {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                let _ = self.0.get_mut().unwrap().recv();
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let (go, gate) = std::sync::mpsc::channel();
        go.send(()).unwrap(); // the header
        let mut store = Store::default();
        store.set_recorder(Recorder::new(Box::new(Gated(gate.into())), &json!({})).unwrap());
        let backlog = store.recorder_backlog().unwrap();
        for i in 0..3 {
            store.append_frame(Dir::In, "stdio", i, b"{}", &mut Vec::new());
            store.end_batch();
        }
        // The writer holds the first batch (its write waits): all three wait.
        assert_eq!(backlog.len(), 3);
        go.send(()).unwrap();
        go.send(()).unwrap();
        backlog.wait_below(2);
        assert!(backlog.len() <= 1);
        go.send(()).unwrap();
        backlog.wait_below(1);
        assert!(backlog.is_empty());
        // A writer that is gone leaves nobody waiting.
        drop(go);
        assert_eq!(store.finish_recording(), None);
        backlog.wait_below(1);
    }

    #[test]
    fn a_large_frame_is_handed_over_in_its_lines_buffer_not_copied() {
        let data = "x".repeat(HAND_OVER);
        let frame = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{data}"}}}}"#
        );
        let mut line =
            format!(r#"{{"seq":3,"t":0.5,"dir":"in","ch":"stdio","json":{frame}}}"#).into_bytes();
        let buffer = line.as_ptr();
        let ev = parse_event(&mut line).unwrap();
        assert_eq!(ev.bytes, frame.as_bytes());
        assert_eq!(
            ev.bytes.as_ptr(),
            buffer,
            "the frame is the line's own buffer"
        );
        assert!(line.is_empty());
        // A small frame is copied, and the line keeps its buffer for the next.
        let mut small = br#"{"seq":4,"t":0.6,"dir":"in","ch":"stdio","json":{"a":1}}"#.to_vec();
        let ev = parse_event(&mut small).unwrap();
        assert_eq!(ev.bytes, br#"{"a":1}"#);
        assert!(!small.is_empty());
    }

    #[test]
    fn round_trip_keeps_exact_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let header = json!({"mcpscope_trace": 1, "version": "x", "started": "now", "server": {}});
        let mut s = Store::default();
        s.set_recorder(Recorder::create(&path, &header).unwrap());
        let frames: Vec<(Dir, &[u8])> = vec![
            (Dir::Out, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            (Dir::In, br#"{"jsonrpc":"2.0", "id":1, "result":{}}"#),
            (Dir::In, b"not json \x1b[0m"),
            (Dir::In, b"\xff\x00bin"),
            (
                Dir::In,
                b"{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": 1,\n  \"result\": {}\n}",
            ),
            (Dir::In, br#"[{"jsonrpc":"2.0","method":"a"}]"#),
        ];
        let mut t = 0;
        for (d, b) in &frames {
            t += 1_234_567;
            s.append_frame(*d, "stdio", t, b, &mut Vec::new());
        }
        s.append_stderr("stdio", t, b"warn: \xc3");
        s.append_meta("stdio", t, &json!({"event": "exit", "code": 0}));
        s.flush();
        drop(s);
        let (h, evs) = read_trace(&path).unwrap();
        assert_eq!(h, header);
        assert_eq!(evs.len(), 9);
        for (i, (d, b)) in frames.iter().enumerate() {
            assert_eq!(evs[i].dir, *d);
            assert_eq!(evs[i].bytes, *b, "event {i}");
            assert_eq!(evs[i].seq, i as u64);
        }
        assert_eq!(evs[0].t_us, 1_234_567);
        assert!(evs[6].in_batch);
        assert_eq!(evs[7].bytes, b"warn: \xc3");
        assert_eq!(evs[7].dir, Dir::Stderr);
        assert_eq!(evs[8].dir, Dir::Meta);
    }

    #[test]
    fn bad_files_say_where() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.jsonl");
        std::fs::write(&path, "{\"mcpscope_trace\":1}\n{\"seq\":0}\n").unwrap();
        let e = read_trace(&path).unwrap_err().to_string();
        assert!(e.contains(":2:"), "{e}");
        std::fs::write(&path, "hello\n").unwrap();
        assert!(read_trace(&path).is_err());
    }
}
