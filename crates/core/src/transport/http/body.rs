//! Response bodies under the frame size cap.

use futures_util::StreamExt;
use reqwest::Response;

/// Past the cap a body is counted, not held, up to this many times the cap
/// (a body that never ends must not keep a request open forever).
const COUNT_PAST_CAP: u64 = 4;

/// A response body, at most `cap` bytes of it held (the sink's frame cap),
/// and its full length (at least): a server cannot make mcpscope hold more.
pub async fn read_capped(resp: Response, cap: usize) -> Result<(Vec<u8>, u64), reqwest::Error> {
    let mut out = Vec::new();
    let mut total = 0u64;
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        total += chunk.len() as u64;
        let room = cap.saturating_sub(out.len()).min(chunk.len());
        out.extend_from_slice(&chunk[..room]);
        if total > cap as u64 * COUNT_PAST_CAP {
            break;
        }
    }
    Ok((out, total))
}
