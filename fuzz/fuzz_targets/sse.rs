//! The SSE parser against itself: a stream cut into pieces anywhere (the
//! first byte picks the piece length) yields exactly what it yields whole.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpscope::transport::sse::SseParser;

fuzz_target!(|data: &[u8]| {
    let Some((&step, stream)) = data.split_first() else {
        return;
    };
    let step = usize::from(step).max(1);
    let mut whole = SseParser::new();
    let all = whole.feed(stream);
    let mut cut = SseParser::new();
    let mut pieces = Vec::new();
    for chunk in stream.chunks(step) {
        pieces.extend(cut.feed(chunk));
    }
    assert_eq!(all, pieces);
    assert_eq!(whole.last_event_id, cut.last_event_id);
    assert_eq!(whole.finish(), cut.finish());
});
