//! The rule sets for the common questions, given by name where a file
//! would go (`--faults lose-progress:50%`).

use super::{Action, DropWhen, FaultsError, Rule};
use crate::filter::Filter;

/// The presets, as `--faults` errors list them.
pub const NAMES: &str = "progress-after-response, reorder-progress, lose-progress:N%, \
    slow-server:DURATION, drop-sse-stream (HTTP only), server-request-storm[:N] (stdio only)";

/// The preset that ends a call's SSE stream at its first progress.
pub const DROP_SSE_STREAM: &str = "drop-sse-stream";
/// The preset that sends the host a burst of `ping` requests.
const STORM: &str = "server-request-storm";
/// Its requests when no number is given.
const STORM_COUNT: u32 = 50;

/// The rules of preset `arg` numbered from `first`; `None` when `arg` names
/// no preset (it is then a file).
pub fn rules(arg: &str, first: u32) -> Result<Option<Vec<Rule>>, FaultsError> {
    let (name, value) = match arg.split_once(':') {
        Some((n, v)) => (n, Some(v)),
        None => (arg, None),
    };
    let bad = |why: &str| Err(FaultsError(format!("--faults {arg}: {why}")));
    let (filter, action) = match (name, value) {
        ("progress-after-response", None) => ("in && progress", Action::Late),
        ("reorder-progress", None) => ("in && progress", Action::Hold),
        ("lose-progress", Some(v)) => {
            let Some(p) = percent(v) else {
                return bad(
                    "the share to lose is a percentage from 0% to 100%, e.g. lose-progress:50%",
                );
            };
            ("in && progress", Action::Drop(DropWhen::Probability(p)))
        }
        ("slow-server", Some(v)) => {
            let Some(ms) = millis(v) else {
                return bad("the delay is a duration: 500ms, 5s, 1m");
            };
            ("in", Action::Delay { ms, jitter_ms: 0 })
        }
        // Each call's POST stream closed before its first progress; the
        // host resumes it (see `http`), and its GET is never closed.
        (DROP_SSE_STREAM, None) => ("in && progress", Action::Close),
        // At a call's first progress, a burst of pings to the host, once.
        (STORM, v) => {
            let count = match v {
                None => STORM_COUNT,
                Some(v) => match v.trim().parse::<u32>() {
                    Ok(n) if (1..=super::MAX_FORGED).contains(&n) => n,
                    _ => {
                        return bad(&format!(
                            "the number of requests is from 1 to {}, e.g. server-request-storm:200",
                            super::MAX_FORGED
                        ));
                    }
                },
            };
            let filter = Filter::parse("in && progress")
                .map_err(|e| FaultsError(format!("--faults {arg}: the preset's filter: {e}")))?;
            return Ok(Some(vec![Rule {
                index: first,
                source: arg.to_string(),
                filter,
                action: Action::Forge {
                    method: "ping".into(),
                    params: None,
                    count,
                },
                limit: Some(1),
            }]));
        }
        ("progress-after-response" | "reorder-progress" | DROP_SSE_STREAM, Some(_)) => {
            return bad("this preset takes no value");
        }
        ("lose-progress" | "slow-server", None) => {
            return bad("this preset needs a value: lose-progress:50%, slow-server:5s");
        }
        _ => return Ok(None),
    };
    let filter = Filter::parse(filter)
        .map_err(|e| FaultsError(format!("--faults {arg}: the preset's filter: {e}")))?;
    Ok(Some(vec![Rule {
        index: first,
        source: arg.to_string(),
        filter,
        action,
        limit: None,
    }]))
}

/// `50%` (or `50`) as 0.5.
fn percent(v: &str) -> Option<f64> {
    let n: f64 = v.trim().trim_end_matches('%').trim().parse().ok()?;
    (0.0..=100.0).contains(&n).then_some(n / 100.0)
}

/// `500ms`, `5s`, `1.5s`, `2m` (bare: seconds) in milliseconds, at most a day.
fn millis(v: &str) -> Option<u64> {
    let ms = crate::format::parse_duration_us(v)?.saturating_add(500) / 1000;
    (ms <= 86_400_000).then_some(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_read_their_values() {
        let r = rules("lose-progress:25%", 3).unwrap().unwrap();
        assert_eq!(r[0].index, 3);
        assert_eq!(r[0].action, Action::Drop(DropWhen::Probability(0.25)));
        let r = rules("slow-server:1.5s", 1).unwrap().unwrap();
        assert_eq!(
            r[0].action,
            Action::Delay {
                ms: 1500,
                jitter_ms: 0
            }
        );
        assert_eq!(
            rules("slow-server:250ms", 1).unwrap().unwrap()[0].action,
            Action::Delay {
                ms: 250,
                jitter_ms: 0
            }
        );
        assert!(rules("faults.toml", 1).unwrap().is_none());
        assert!(rules("lose-progress:150%", 1).is_err());
        let drop = rules("drop-sse-stream", 1).unwrap().unwrap();
        assert_eq!(drop[0].action, Action::Close);
        assert!(rules("drop-sse-stream:2", 1).is_err());
        let storm = rules("server-request-storm", 3).unwrap().unwrap();
        assert_eq!((storm[0].index, storm[0].limit), (3, Some(1)));
        assert!(
            matches!(&storm[0].action, Action::Forge { method, count: 50, .. } if method == "ping")
        );
        let storm = rules("server-request-storm:200", 1).unwrap().unwrap();
        assert!(matches!(storm[0].action, Action::Forge { count: 200, .. }));
        assert!(rules("server-request-storm:0", 1).is_err());
        assert!(rules("server-request-storm:10001", 1).is_err());
    }
}
