//! The definitions a test file pins: `STEM.baseline.json` beside it, the
//! tools, resources, resource templates and prompts its server listed, as
//! `check --write-baseline` writes them. `test --record` writes it,
//! `--update` rewrites it saying what changed; whenever it exists, a run
//! lists the server's definitions once per file (in a session of its own,
//! so no case's session holds the listing) and any drift — a schema
//! changed, marked less safe where it is; a tool added or removed — fails
//! the file, reported at the drifted entry's line of the baseline.

use super::Goldens;
use crate::calls::listings::Listings;
use crate::cli::check::report::drift_line;
use crate::cli::check::{LISTING_LIMIT, list_the_rest};
use crate::cli::connect::{handshake, observed, start_live};
use crate::cli::sarif::pinned_line;
use crate::cli::spec::ServerArgs;
use crate::diff::At;
use crate::diff::baseline::Baseline;
use crate::protocol::sanitize::one_line;
use crate::suite::{CaseResult, Failure as Miss};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where a test file's baseline is: `STEM.baseline.json` beside it.
pub fn path(test_file: &Path) -> PathBuf {
    let stem = test_file
        .file_stem()
        .map_or_else(|| "test".into(), |s| s.to_string_lossy());
    test_file.with_file_name(format!("{stem}.baseline.json"))
}

/// Pin, compare or rewrite the file's baseline, as `goldens` says: `None`
/// when there is none and none is asked for; else the file's listing as
/// one result (failed on drift, or when the listing could not be made).
pub async fn run(test_file: &Path, args: ServerArgs, goldens: Goldens) -> Option<CaseResult> {
    let at = path(test_file);
    let pinned = if at.exists() {
        match Baseline::read(&at) {
            Ok(b) => Some(b),
            Err(e) => return Some(result(&at, 1, vec![miss(1, &e.to_string(), None)], 2, 0.0)),
        }
    } else {
        None
    };
    if pinned.is_none() && goldens == Goldens::Compare {
        return None;
    }
    let started = Instant::now();
    let listings = match listed(&args).await {
        Ok(l) => l,
        Err((code, why)) => {
            let why = format!("the definitions could not be listed: {why}");
            return Some(result(&at, 1, vec![miss(1, &why, None)], code, 0.0));
        }
    };
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let name = one_line(&at.display().to_string()).into_owned();
    let fresh = match Baseline::pin(&listings) {
        Ok(b) if !b.is_empty() => b,
        Ok(_) => {
            let why = "the server listed no tools, resources or prompts: nothing to pin";
            return Some(result(&at, 1, vec![miss(1, why, None)], 1, ms));
        }
        Err(why) => return Some(result(&at, 1, vec![miss(1, &why.to_string(), None)], 3, ms)),
    };
    let text = std::fs::read_to_string(&at).unwrap_or_default();
    let drift = pinned
        .as_ref()
        .map(|b| b.drift(&listings, &|seq| At { seq, line: 0 }))
        .unwrap_or_default();
    let write = match goldens {
        Goldens::Record => true,
        Goldens::Update => {
            match &pinned {
                None => eprintln!("[baseline] {name}: written (there was none)"),
                Some(_) if drift.is_empty() => eprintln!("[baseline] {name}: unchanged"),
                Some(_) => {
                    eprintln!("[baseline] {name}: changed");
                    for c in &drift {
                        eprintln!("  {}", one_line(&drift_line(c)));
                    }
                }
            }
            true
        }
        Goldens::Compare => false,
    };
    if write {
        if let Err(e) = std::fs::write(&at, fresh.to_text()) {
            let why = format!("cannot write {name}: {e}");
            return Some(result(&at, 1, vec![miss(1, &why, None)], 2, ms));
        }
        return Some(result(&at, 1, Vec::new(), 0, ms));
    }
    let failures: Vec<Miss> = drift
        .iter()
        .map(|c| {
            let line = pinned_line(&text, &c.kind, &c.name).unwrap_or(1);
            miss(
                line,
                &drift_line(c),
                Some("a reviewed change: `mcpscope test --update` pins the new definitions"),
            )
        })
        .collect();
    let line = failures.first().map_or(1, |f| f.line);
    let code = if failures.is_empty() { 0 } else { 1 };
    Some(result(&at, line, failures, code, ms))
}

/// The definitions the server lists now, in a session of their own.
async fn listed(args: &ServerArgs) -> Result<Listings, (i32, String)> {
    let limits = crate::client::ClientOptions::default().handshake;
    let mut live = start_live(args, None, limits, observed(args), true)
        .await
        .map_err(|e| (e.exit_code(), e.to_string()))?;
    let (session, trace) = (live.session.clone(), live.trace.clone());
    let outcome = async {
        handshake(&session)
            .await
            .map_err(|e| (e.exit_code(), e.to_string()))?;
        if session.server().is_some_and(|s| s.has_capability("tools")) {
            let _ = tokio::time::timeout(LISTING_LIMIT, session.list_tools()).await;
        }
        list_the_rest(&session, limits).await;
        Ok(())
    }
    .await;
    live.stop_server(false).await;
    let _ = live.end(std::future::pending()).await;
    outcome?;
    let store = trace.read();
    let mut listings = Listings::default();
    for ev in store.range(0, store.next_seq()) {
        listings.observe(&ev);
    }
    Ok(listings)
}

fn miss(line: usize, message: &str, fix: Option<&str>) -> Miss {
    Miss {
        what: "baseline".into(),
        line,
        message: one_line(message).into_owned(),
        fix: fix.map(str::to_string),
        rule: None,
    }
}

fn result(at: &Path, line: usize, failures: Vec<Miss>, code: i32, ms: f64) -> CaseResult {
    CaseResult {
        file: at.display().to_string(),
        name: "pinned definitions".into(),
        line,
        tool: String::new(),
        passed: failures.is_empty() && code == 0,
        code,
        failures,
        seen: Default::default(),
        groups: Vec::new(),
        duration_ms: ms,
    }
}
