//! Properties of the parsers and formatters that take whatever a server (or a
//! config file, or a damaged trace) hands them: each invariant is checked over
//! generated inputs, not just the examples that came to mind.

use mcpscope::cli::spec::{config_from_text, from_config};
use mcpscope::trace::reader::read_trace;
use mcpscope::trace::record::Recorder;
use mcpscope::trace::store::{Dir, Store};
use mcpscope::transport::lines::read_lines;
use mcpscope::transport::sse::SseParser;
use mcpscope::tui::jsonfmt::{line_text, pretty};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::{Value, json};
use std::io::{self, Read};
use std::path::Path;

/// The same cases on every run (a test must not pass or fail by chance);
/// `PROPTEST_RNG_SEED` and `PROPTEST_CASES` explore further. A failure is
/// printed with its shrunk input, to be kept as a named test.
fn config() -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if c.rng_seed == RngSeed::Random {
        c.rng_seed = RngSeed::Fixed(0x6d63_7073_636f_7065);
    }
    c.failure_persistence = None;
    c
}

/// A reader that hands its data over in pieces of the given lengths (cycled),
/// with an `Interrupted` error before each piece of length 0.
struct Pieces<'a> {
    data: &'a [u8],
    steps: Vec<usize>,
    next: usize,
}

impl Read for Pieces<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let step = self.steps[self.next % self.steps.len()];
        self.next += 1;
        if step == 0 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = step.min(out.len()).min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// What newline framing means: split on LF, drop one CR before it, and a
/// final line without a terminator still counts.
fn framed(data: &[u8]) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = data
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
        .collect();
    if data.is_empty() || data.ends_with(b"\n") {
        lines.pop();
    }
    lines
}

/// Bytes rich in the characters framing cares about.
fn stream_bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        3 => Just(b'\n'),
        3 => Just(b'\r'),
        4 => Just(b'x'),
        1 => Just(b':'),
        1 => Just(b' '),
        2 => any::<u8>(),
    ];
    proptest::collection::vec(byte, 0..max)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn line_framing_is_the_same_under_any_split(
        data in stream_bytes(400),
        steps in proptest::collection::vec(0usize..50, 1..20),
    ) {
        prop_assume!(steps.iter().any(|&s| s > 0));
        let mut got = Vec::new();
        read_lines(Pieces { data: &data, steps, next: 0 }, |b| {
            got.extend(b.iter().map(|l| l.to_vec()))
        })
        .unwrap();
        prop_assert_eq!(got, framed(&data));
    }
}

/// SSE text built from the fields and line endings a server mixes.
fn sse_stream() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data: ".to_vec()),
        Just(b"data:".to_vec()),
        Just(b"id: ".to_vec()),
        Just(b"event: ".to_vec()),
        Just(b"retry: ".to_vec()),
        Just(b":".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\n\n".to_vec()),
        Just("é{\"a\":1}".as_bytes().to_vec()),
        Just(b"\0".to_vec()),
        "[0-9a-z ]{1,6}".prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 1..4),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn sse_parsing_is_the_same_under_any_split(
        stream in sse_stream(),
        mut cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let mut whole = SseParser::new();
        let expected = whole.feed(&stream);
        let mut at: Vec<usize> = cuts.drain(..).map(|i| i.index(stream.len() + 1)).collect();
        at.sort_unstable();
        let mut split = SseParser::new();
        let mut got = Vec::new();
        let mut from = 0;
        for cut in at.into_iter().chain([stream.len()]) {
            got.extend(split.feed(&stream[from..cut]));
            from = cut;
        }
        prop_assert_eq!(got, expected);
        prop_assert_eq!(&split.last_event_id, &whole.last_event_id);
        prop_assert_eq!(split.finish(), whole.finish());
    }
}

/// A JSON document as text: any spacing, numbers as servers spell them,
/// strings with escapes.
#[derive(Debug, Clone)]
enum J {
    Lit(&'static str),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

fn json_string() -> impl Strategy<Value = String> {
    // Characters the display keeps as they are (controls and bidi overrides
    // are neutralised on screen on purpose), some written as escapes.
    let ch = prop_oneof![
        4 => "[a-z0-9 /,:{}\\[\\]]".prop_map(|s| s),
        1 => Just("\\\"".to_string()),
        1 => Just("\\\\".to_string()),
        1 => Just("\\n".to_string()),
        1 => Just("\\u00e9".to_string()),
        1 => Just("\\u001b".to_string()),
        1 => Just("\\/".to_string()),
        1 => "[é€😀ß]".prop_map(|s| s),
    ];
    proptest::collection::vec(ch, 0..10).prop_map(|c| format!("\"{}\"", c.concat()))
}

fn json_doc() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Lit("true")),
        Just(J::Lit("false")),
        Just(J::Lit("null")),
        "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,8})?([eE][+-]?[0-9]{1,2})?".prop_map(J::Num),
        json_string().prop_map(J::Str),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(J::Arr),
            proptest::collection::vec((json_string(), inner), 0..6).prop_map(J::Obj),
        ]
    })
}

fn render(j: &J, ws: &mut impl FnMut() -> &'static str, out: &mut String) {
    out.push_str(ws());
    match j {
        J::Lit(s) => out.push_str(s),
        J::Num(s) | J::Str(s) => out.push_str(s),
        J::Arr(items) => {
            out.push('[');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                render(it, ws, out);
            }
            out.push_str(ws());
            out.push(']');
        }
        J::Obj(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(ws());
                out.push_str(k);
                out.push_str(ws());
                out.push(':');
                render(v, ws, out);
            }
            out.push_str(ws());
            out.push('}');
        }
    }
    out.push_str(ws());
}

/// The text without whitespace outside strings: what must survive re-indenting.
fn compact(s: &str) -> String {
    let mut out = String::new();
    let (mut in_str, mut esc) = (false, false);
    for c in s.chars() {
        if in_str {
            out.push(c);
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if !c.is_ascii_whitespace() {
            in_str = c == '"';
            out.push(c);
        }
    }
    out
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn pretty_printing_keeps_the_value_and_the_number_spelling(
        doc in json_doc(),
        seed in any::<u64>(),
    ) {
        let mut state = seed;
        let mut ws = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ["", "", "", " ", "\n  ", "\t", "\r\n"][(state >> 33) as usize % 7]
        };
        let mut text = String::new();
        render(&doc, &mut ws, &mut text);
        let (lines, cut) = pretty(&text, usize::MAX);
        prop_assert!(!cut);
        let shown: Vec<String> = lines.iter().map(|l| line_text(l)).collect();
        let shown = shown.join("\n");
        prop_assert_eq!(compact(&shown), compact(&text), "{}", shown);
        let original: Result<Value, _> = serde_json::from_str(&text);
        let again: Result<Value, _> = serde_json::from_str(&shown);
        match (original, again) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (a, b) => prop_assert!(false, "{text:?} parses as {a:?}, shown as {b:?}"),
        }
    }

    #[test]
    fn pretty_printing_any_text_shows_no_control_characters(text in "\\PC*|[\\x00-\\x7f\u{80}-\u{9f}\u{202e}]{0,80}") {
        let (lines, _) = pretty(&text, 10_000);
        for l in &lines {
            let t = line_text(l);
            prop_assert!(
                !t.chars().any(|c| c.is_control() || ('\u{202A}'..='\u{202E}').contains(&c)),
                "{:?} shows as {:?}", text, t
            );
        }
    }
}

/// Strings a config holds, rich in what comment and comma stripping must leave alone.
fn config_string() -> impl Strategy<Value = String> {
    "[a-z/*,}\\]\" :\\\\]{0,10}"
}

fn config_doc() -> impl Strategy<Value = (Value, String)> {
    let pairs = || proptest::collection::btree_map("[A-Za-z_]{1,6}", config_string(), 0..3);
    let stdio = (
        config_string(),
        proptest::collection::vec(config_string(), 0..3),
        pairs(),
    )
        .prop_map(|(c, a, e)| json!({"command": c, "args": a, "env": e}));
    let http = (config_string(), pairs()).prop_map(|(u, h)| json!({"url": u, "headers": h}));
    let servers = proptest::collection::btree_map("[a-z]{1,5}", prop_oneof![stdio, http], 1..4);
    (servers, 0..3u8).prop_flat_map(|(servers, shape)| {
        let names: Vec<String> = servers.keys().cloned().collect();
        let servers = Value::Object(servers.into_iter().collect());
        let root = match shape {
            0 => json!({"mcpServers": servers}),
            1 => json!({"servers": servers, "inputs": []}),
            _ => json!({"mcp": {"servers": servers}}),
        };
        proptest::sample::select(names).prop_map(move |n| (root.clone(), n))
    })
}

/// `v` as JSONC: comments wherever whitespace may stand, trailing commas.
fn jsonc(v: &Value, extra: &mut impl FnMut() -> &'static str, out: &mut String) {
    out.push_str(extra());
    match v {
        Value::Array(items) => {
            out.push('[');
            for it in items {
                jsonc(it, extra, out);
                out.push(',');
            }
            out.push_str(extra());
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (k, it) in m {
                out.push_str(extra());
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(extra());
                out.push(':');
                jsonc(it, extra, out);
                out.push(',');
            }
            out.push_str(extra());
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
    out.push_str(extra());
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn jsonc_config_reads_as_its_plain_json(
        (root, name) in config_doc(),
        seed in any::<u64>(),
    ) {
        let mut state = seed;
        let mut extra = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ["", " ", "\n", "// c, }\n", "/* , ] */", "/**/", "\r\n// x\r\n"][(state >> 33) as usize % 7]
        };
        let mut text = String::new();
        jsonc(&root, &mut extra, &mut text);
        let path = Path::new("mcp.json");
        let plain = config_from_text(&root.to_string(), path, Some(&name));
        let commented = config_from_text(&text, path, Some(&name));
        prop_assert!(plain.is_ok(), "{:?}", plain.err().map(|e| e.to_string()));
        let commented = commented.map_err(|e| e.to_string());
        prop_assert_eq!(commented, Ok(plain.unwrap()), "{}", text);
    }
}

#[test]
fn jsonc_trailing_comma_before_a_comment_is_dropped() {
    let d = tempfile::tempdir().unwrap();
    for text in [
        "{\"servers\": {\"a\": {\"command\": \"x\"}, // x\n}}",
        "{\"servers\": {\"a\": {\"command\": \"x\", \"args\": [\"1\", /* y */]}, /* z */ }}",
    ] {
        let p = d.path().join("mcp.json");
        std::fs::write(&p, text).unwrap();
        let spec = from_config(&p, None).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(spec.name(), "a", "{text:?}");
    }
}

#[test]
fn jsonc_errors_point_at_the_line_as_written() {
    let text = "{\n  /* a\n  comment */ \"servers\": {\n    \"a\": {\"command\": \"x\",, }\n  }\n}";
    let e = config_from_text(text, Path::new("mcp.json"), None).unwrap_err();
    assert!(e.to_string().contains("line 4"), "{e}");
}

#[test]
fn a_json_frame_with_whitespace_around_it_is_recorded_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let header = json!({"mcpscope_trace": 1});
    let frames: [&[u8]; 3] = [
        br#" {"jsonrpc":"2.0","id":2,"result":{}} "#,
        b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\t",
        b"\t{\"a\": 1}",
    ];
    let mut store = Store::default();
    store.set_recorder(Recorder::create(&path, &header).unwrap());
    for f in frames {
        store.append_frame(Dir::In, "stdio", 1, f, &mut Vec::new());
    }
    store.flush();
    let (_, events) = read_trace(&path).unwrap();
    let read: Vec<&[u8]> = events.iter().map(|e| e.bytes.as_slice()).collect();
    assert_eq!(read, frames.to_vec());
}

/// Frames as servers send them, including the awkward ones a recording
/// must keep byte for byte.
fn frame_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec()),
        Just(br#"{"jsonrpc":"2.0", "id":1, "result":{}}"#.to_vec()),
        Just(br#" {"jsonrpc":"2.0","id":2,"result":{}} "#.to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":2}}\t".to_vec()),
        Just(b"{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": 3,\n  \"result\": {}\n}".to_vec()),
        Just(br#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":4,"result":1}]"#.to_vec()),
        Just(br#"{"n":1.50,"big":123456789012345678901234567890}"#.to_vec()),
        Just(b"  ".to_vec()),
        Just(b"not json \x1b[0m".to_vec()),
        "\\PC{0,20}".prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 0..24),
    ]
}

#[derive(Debug, Clone)]
enum Append {
    Frame(Dir, &'static str, Vec<u8>),
    Stderr(Vec<u8>),
    Meta(Value),
}

fn append() -> impl Strategy<Value = Append> {
    let dir = prop_oneof![Just(Dir::In), Just(Dir::Out)];
    let ch = prop_oneof![
        Just("stdio"),
        Just("get"),
        Just("post-1"),
        Just("ch \"q\"\n")
    ];
    prop_oneof![
        4 => (dir, ch, frame_bytes()).prop_map(|(d, c, b)| Append::Frame(d, c, b)),
        1 => proptest::collection::vec(any::<u8>(), 0..24).prop_map(Append::Stderr),
        1 => "\\PC{0,12}".prop_map(|s| Append::Meta(json!({"event": "exit", "note": s}))),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_recording_reads_back_as_the_events_stored(
        appends in proptest::collection::vec((append(), 0u64..10_000_000_000), 0..40),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let header = json!({"mcpscope_trace": 1, "version": "p", "server": {"n": "é"}});
        let mut store = Store::default();
        store.set_recorder(Recorder::create(&path, &header).unwrap());
        let mut t_us = 0;
        for (a, dt) in &appends {
            t_us += dt;
            match a {
                Append::Frame(d, ch, b) => {
                    store.append_frame(*d, ch, t_us, b, &mut Vec::new());
                }
                Append::Stderr(b) => {
                    store.append_stderr("stdio", t_us, b);
                }
                Append::Meta(v) => {
                    store.append_meta("stdio", t_us, v);
                }
            }
        }
        store.flush();
        prop_assert_eq!(store.recorder_error(), None);
        let (h, events) = read_trace(&path).unwrap();
        prop_assert_eq!(h, header);
        let stored: Vec<_> = store.range(0, store.next_seq()).collect();
        prop_assert_eq!(events.len(), stored.len());
        for (r, s) in events.iter().zip(&stored) {
            prop_assert_eq!(r.seq, s.seq);
            prop_assert_eq!(r.t_us, s.t_us);
            prop_assert_eq!(r.dir, s.dir);
            prop_assert_eq!(&r.channel, s.channel);
            prop_assert_eq!(r.in_batch, s.flags & mcpscope::trace::store::flags::IN_BATCH != 0);
            prop_assert_eq!(&r.bytes, s.bytes, "seq {}", s.seq);
        }
    }
}
