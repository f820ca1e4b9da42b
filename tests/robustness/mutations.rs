//! Whatever a server sends, nothing panics and every byte is kept: mutated
//! frames (deterministic pseudo-random edits of real MCP messages) go through
//! classification, the store, the recorder, the rule engine, the headless
//! printer and the replay formatter.

use mcpscope::checks::{CheckConfig, Checker};
use mcpscope::cli::printer::Printer;
use mcpscope::cli::replay::format_store;
use mcpscope::trace::reader::read_trace;
use mcpscope::trace::record::Recorder;
use mcpscope::trace::{Dir, ManualClock, Store, Trace};

const SEEDS: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"t"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":10,"message":"one"}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"l","data":{"k":[1,2]}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}"#,
    r#"{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"?","requestedSchema":{}}}"#,
    r#"[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}},{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"x"}}]"#,
];

/// xorshift64*: deterministic, no dependencies.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..=rng.below(4) {
        let i = rng.below(b.len());
        match rng.below(6) {
            0 => b[i] = rng.next() as u8,
            1 => {
                b.remove(i.min(b.len().saturating_sub(1)));
            }
            2 => b.insert(i, b"{}[]\",:\\\0\x1b\xff0-e."[rng.below(15)]),
            3 => b.truncate(i),
            4 => {
                let j = rng.below(b.len());
                let (lo, hi) = (i.min(j), i.max(j));
                let dup = b[lo..hi].to_vec();
                b.splice(hi..hi, dup);
            }
            _ => b.retain(|c| *c != b'"' || rng.below(3) > 0),
        }
        if b.is_empty() {
            break;
        }
    }
    b.retain(|c| *c != b'\n');
    b
}

#[test]
fn mutated_frames_never_panic_and_are_kept_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzz.jsonl");
    let header =
        serde_json::json!({"mcpscope_trace": 1, "version": "t", "started": "now", "server": {}});
    let mut store = Store::default();
    store.set_recorder(Recorder::create(&path, &header).unwrap());
    let trace = Trace::new(store, ManualClock::new());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut sent: Vec<Vec<u8>> = Vec::new();
    for i in 0..20_000u64 {
        let seed = SEEDS[rng.below(SEEDS.len())].as_bytes();
        let frame = if i % 7 == 0 {
            seed.to_vec()
        } else {
            mutate(&mut rng, seed)
        };
        let dir = if rng.below(4) == 0 { Dir::Out } else { Dir::In };
        trace.append(|s, _| s.append_frame(dir, "stdio", i * 10, &frame, &mut Vec::new()));
        sent.push(frame);
    }
    // Every consumer reads every event without panicking.
    let mut checker = Checker::new(CheckConfig::default());
    let mut findings = Vec::new();
    let mut printed = Vec::new();
    Printer::new(false).drain(&trace, &mut printed);
    let text = {
        let store = trace.read();
        for ev in store.range(0, store.next_seq()) {
            checker.observe(&ev, &mut findings);
        }
        format_store(&store)
    };
    checker.tick(u64::MAX / 2, &mut findings);
    assert!(!findings.is_empty(), "mutations break rules");
    assert!(!text.is_empty());
    let printed = String::from_utf8(printed).expect("printer output is UTF-8");
    assert!(
        !printed.contains('\x1b'),
        "no raw escape reaches the terminal"
    );

    // The top-level frames are stored and recorded byte for byte.
    trace.append(|s, _| s.flush());
    let (_, events) = read_trace(&path).unwrap_or_else(|e| {
        let l = std::fs::read_to_string(&path).unwrap();
        panic!("{e}: {}", l.lines().nth(1284).unwrap_or(""))
    });
    let top: Vec<&[u8]> = events
        .iter()
        .filter(|e| !e.in_batch)
        .map(|e| e.bytes.as_slice())
        .collect();
    assert_eq!(top.len(), sent.len());
    for (i, (got, want)) in top.iter().zip(&sent).enumerate() {
        assert_eq!(got, &want.as_slice(), "frame {i}");
    }
}

#[test]
fn a_new_token_per_frame_cannot_grow_findings_without_bound() {
    let mut store = Store::default();
    for i in 0..5_000u64 {
        let f = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"t{i}","progress":1}}}}"#
        );
        store.append_frame(Dir::In, "stdio", i, f.as_bytes(), &mut Vec::new());
    }
    let mut checker = Checker::new(CheckConfig::default());
    let mut findings = Vec::new();
    for ev in store.range(0, store.next_seq()) {
        checker.observe(&ev, &mut findings);
    }
    let unknown = findings
        .iter()
        .filter(|f| f.rule.id() == "progress-unknown-token")
        .count();
    assert_eq!(unknown as u32, mcpscope::checks::engine::MAX_PER_RULE);
}
