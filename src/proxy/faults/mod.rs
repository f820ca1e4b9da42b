//! Faults on purpose (`proxy --faults FILE|PRESET`): rules, each a filter
//! and an action, applied to the stdio proxy's traffic line by line, so a
//! host or a server can be tried against a peer that misbehaves on demand.
//!
//! - `file`: a faults file (TOML) into rules, errors naming line and column;
//! - `presets`: the named rule sets (`lose-progress:50%`, `slow-server:5s`…);
//! - `apply`: the engine deciding, per line, what is sent instead;
//! - `copy`: the line-framed copying that runs the engine (only with
//!   `--faults`: without it the proxy copies bytes as they come).
//!
//! Every change is recorded as an `injected` event beside the frames each
//! party really sent, so the checks judge the parties on what they sent and
//! never blame one for what the proxy did.

mod apply;
mod copy;
mod file;
pub mod http;
mod presets;

pub use apply::{Engine, Out, Stream};
pub use copy::copy_lines;

use crate::filter::Filter;

/// The seed when no faults file names one: runs repeat as they are.
/// Requests one `forge` sends at most.
pub const MAX_FORGED: u32 = 10_000;

pub const DEFAULT_SEED: u64 = 0x6d63_7073_636f_7065;

/// One rule: which messages (`filter`), what happens to them, how often.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Its number among all `--faults` rules, from 1 (what the trace names).
    pub index: u32,
    /// The preset or file it came from.
    pub source: String,
    pub filter: Filter,
    pub action: Action,
    /// It fires at most this many times.
    pub limit: Option<u64>,
}

impl Rule {
    /// The `injected` event of this rule acting on `body` on `stream`:
    /// the message as sent (and what went instead), each kept up to the
    /// trace's frame cap `max_frame`.
    pub fn injected(
        &self,
        stream: Stream,
        body: &[u8],
        sent: Option<&[u8]>,
        detail: Option<String>,
        max_frame: usize,
    ) -> crate::event::Event {
        let keep = |b: &[u8]| String::from_utf8_lossy(&b[..b.len().min(max_frame)]).into_owned();
        crate::event::Event::Injected {
            rule: self.index,
            source: self.source.clone(),
            action: self.action.name().into(),
            stream: stream.label().into(),
            original: keep(body),
            original_bytes: (body.len() > max_frame).then_some(body.len() as u64),
            sent: sent.map(keep),
            detail,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Sent this much later (plus up to `jitter_ms`), the stream's order kept.
    Delay {
        ms: u64,
        jitter_ms: u64,
    },
    Drop(DropWhen),
    /// Sent twice.
    Duplicate,
    /// Held until the next message this rule matches on the same stream
    /// has been sent: the two swap places.
    Hold,
    /// A notification held until the response of its call has been sent
    /// (a progress notification: the request that carried its token; any
    /// other: the next response on its stream).
    Late,
    Corrupt(Corruption),
    /// The stream is closed towards its receiver: nothing more is sent.
    Close,
    /// HTTP only: the host's message is answered with this status in the
    /// server's place and never reaches the server.
    Status(u16),
    /// Stdio, towards the host: after the message, `count` requests
    /// `method` (with `params`) the server never sent, forged by the proxy
    /// (ids `"mcpscope-forged-N"`); the host's answers to them are kept
    /// from the server.
    Forge {
        method: String,
        params: Option<serde_json::Value>,
        count: u32,
    },
}

impl Action {
    pub fn name(&self) -> &'static str {
        match self {
            Action::Delay { .. } => "delay",
            Action::Drop(_) => "drop",
            Action::Duplicate => "duplicate",
            Action::Hold => "hold",
            Action::Late => "late",
            Action::Corrupt(_) => "corrupt",
            Action::Close => "close",
            Action::Status(_) => "status",
            Action::Forge { .. } => "forge",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DropWhen {
    Always,
    /// The Nth match, the 2Nth…
    Every(u64),
    /// Each match with this probability (0..=1), drawn from the seeded PRNG.
    Probability(f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corruption {
    /// The first half of the line is sent, then its line break.
    Cut,
    /// The line made invalid JSON (its first `:` becomes `=`).
    InvalidJson,
    /// A response's (or request's) id replaced by one nobody used.
    WrongId,
}

/// Every rule of every `--faults`, in order, and the seed.
#[derive(Debug, Clone)]
pub struct Faults {
    pub rules: Vec<Rule>,
    pub seed: u64,
}

/// No rule (the engine of `proxy --intercept` alone).
impl Default for Faults {
    fn default() -> Faults {
        Faults {
            rules: Vec::new(),
            seed: DEFAULT_SEED,
        }
    }
}

/// A `--faults` that cannot be used: a usage error (exit 2), said as is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultsError(pub String);

impl std::fmt::Display for FaultsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Read every `--faults` value (a preset by name, else a file), in order:
/// rules are numbered across them all; the first file naming a seed sets it.
pub fn load(args: &[String]) -> Result<Faults, FaultsError> {
    let mut rules = Vec::new();
    let mut seed = None;
    for arg in args {
        let first = rules.len() as u32 + 1;
        if let Some(preset) = presets::rules(arg, first)? {
            rules.extend(preset);
            continue;
        }
        let (file_rules, file_seed) = file::load(std::path::Path::new(arg), first)?;
        rules.extend(file_rules);
        seed = seed.or(file_seed);
    }
    Ok(Faults {
        rules,
        seed: seed.unwrap_or(DEFAULT_SEED),
    })
}

/// The rules the stdio proxy can act on: `status` answers an HTTP
/// request, which a stdio connection has none of.
pub fn for_stdio(faults: Faults) -> Result<Faults, FaultsError> {
    for r in &faults.rules {
        if r.source == presets::DROP_SSE_STREAM {
            return Err(FaultsError(format!(
                "--faults {}: it ends a call's SSE stream, which a stdio connection does not \
                 have: it needs the HTTP proxy (--listen ADDR:PORT --url URL)",
                r.source
            )));
        }
        if let Action::Status(_) = r.action {
            return Err(FaultsError(format!(
                "--faults {}: rule {} (status) answers an HTTP request: it needs the HTTP proxy \
                 (--listen ADDR:PORT --url URL)",
                r.source, r.index
            )));
        }
        if let Action::Forge { .. } = r.action
            && r.filter.needs().dir != Some(crate::trace::Dir::In)
        {
            return Err(FaultsError(format!(
                "--faults {}: rule {} (forge) sends requests to the host after a server's \
                 message: its match must select them (`in && …`)",
                r.source, r.index
            )));
        }
    }
    Ok(faults)
}

/// splitmix64: a tiny PRNG, enough to make drops and jitter repeat with a
/// seed (no dependency whose sequence could change under a version bump).
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prng_repeats_with_its_seed() {
        let mut a = SplitMix::new(7);
        let mut b = SplitMix::new(7);
        let xs: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert!((0..1000).all(|_| (0.0..1.0).contains(&a.next_f64())));
    }
}
