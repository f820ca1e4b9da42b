//! Live proxy sessions on this machine: each running proxy keeps one entry
//! file (`PID.json`, mode 0600) in a per-user runtime directory, rewritten
//! as its counts change and removed when it ends. Entries of processes that
//! are gone (killed before they could clean up) are pruned by whoever lists
//! them, with the trace file the proxy kept there (`PID.jsonl`). Pruning
//! removes files of this directory only, by the names mcpscope gives them:
//! an entry is data, and the paths it names are never deleted on its word.
//!
//! The directory: `MCPSCOPE_RUNTIME_DIR` if set, else the platform's runtime
//! directory (`$XDG_RUNTIME_DIR/mcpscope`), else on Linux a `mcpscope-UID`
//! directory in the temporary directory and elsewhere the user's cache
//! directory; created mode 0700 (Unix).

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Entry files read at most (a directory full of junk must not hang `sessions`).
const MAX_ENTRIES: usize = 1024;
/// An entry file's size at most.
const MAX_ENTRY_BYTES: u64 = 64 << 10;

/// One live proxy session, as `sessions --json` prints it.
/// Where `proxy --intercept` takes its controller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterceptEndpoint {
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// In the entry file only (private to the user): `sessions --json`
    /// leaves it out.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub token: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    pub name: String,
    pub pid: u32,
    /// `stdio` or `http`.
    pub transport: String,
    /// The server command line (secrets redacted), or the URL.
    pub server: Vec<String>,
    /// The trace the proxy writes as it goes (`attach` follows it).
    pub trace: PathBuf,
    /// The trace is the proxy's own (no `--record`): removed when it ends.
    pub owned_trace: bool,
    /// RFC 3339 UTC.
    pub started: String,
    /// Milliseconds since the Unix epoch, for the trace's clock.
    pub started_ms: u64,
    /// Events in the trace so far.
    pub events: u64,
    /// Findings so far (error, warning, info); absent with `--no-check`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub findings: Option<[u64; 3]>,
    /// Findings per host session, when the proxy saw host sessions (HTTP):
    /// each session is judged on its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostFindings>,
    /// Bytes forwarded that the observer could not keep.
    #[serde(default)]
    pub unobserved_bytes: u64,
    /// HTTP exchanges forwarded that the observer could not follow at all
    /// (their bytes are in `unobserved_bytes`).
    #[serde(default)]
    pub unobserved_exchanges: u64,
    /// HTTP requests whose body waited for room among the bodies held at
    /// once (the proxy's memory bound on them).
    #[serde(default)]
    pub requests_waited: u64,
    /// `proxy --intercept`: where its control connection listens, and the
    /// token a controller must give first (src/intercept/protocol.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intercept: Option<InterceptEndpoint>,
    /// When the process started (clock ticks since boot, Linux): a pid the
    /// system reused for another process does not keep the entry alive.
    /// Filled in by `register`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_start: Option<u64>,
}

/// One host session's findings (error, warning, info).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostFindings {
    /// The host session's id (its `Mcp-Session-Id`).
    pub session: String,
    pub findings: [u64; 3],
}

/// Host sessions listed per entry, at most (the rest are in `findings`).
pub const MAX_HOSTS: usize = 64;

impl Entry {
    /// A session starting now: nothing counted yet, findings counted when
    /// its checks run.
    pub fn starting(
        name: String,
        pid: u32,
        transport: &str,
        server: Vec<String>,
        trace: PathBuf,
        owned_trace: bool,
        checks: bool,
    ) -> Entry {
        Entry {
            name,
            pid,
            transport: transport.into(),
            server,
            trace,
            owned_trace,
            started: crate::session::rfc3339_now(),
            started_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            events: 0,
            findings: checks.then_some([0; 3]),
            hosts: Vec::new(),
            unobserved_bytes: 0,
            unobserved_exchanges: 0,
            requests_waited: 0,
            intercept: None,
            pid_start: None,
        }
    }

    /// Is the proxy that wrote this entry still running?
    pub fn is_live(&self) -> bool {
        alive(self.pid)
            && match (self.pid_start, start_time(self.pid)) {
                (Some(want), Some(now)) => want == now,
                // Written where the start time is unknown, or not readable now.
                _ => true,
            }
    }
}

pub use crate::platform::process::{alive, start_time};

/// The sessions directory, created (0700) if needed.
pub fn dir() -> std::io::Result<PathBuf> {
    let base = if let Some(d) = std::env::var_os("MCPSCOPE_RUNTIME_DIR") {
        PathBuf::from(d)
    } else if let Some(d) = directories::ProjectDirs::from("", "", "mcpscope")
        .and_then(|p| p.runtime_dir().map(Path::to_path_buf))
    {
        d
    } else {
        fallback_dir()
    };
    let d = base.join("sessions");
    // A directory someone else made, or made open to others, is refused.
    crate::files::private_dir(&d, crate::files::Others::Nothing)?;
    Ok(d)
}

/// Where the sessions directory is when the platform names no runtime
/// directory. Linux: a `mcpscope-UID` directory in the temporary directory.
/// Elsewhere the user's cache directory (`~/Library/Caches/mcpscope` on
/// macOS, `%LOCALAPPDATA%\mcpscope\cache` on Windows), else the temporary
/// directory (per user on both) — with the same privacy check either way.
fn fallback_dir() -> PathBuf {
    let in_temp =
        || std::env::temp_dir().join(format!("mcpscope-{}", crate::platform::process::user_tag()));
    if cfg!(target_os = "linux") {
        return in_temp();
    }
    directories::ProjectDirs::from("", "", "mcpscope")
        .map(|p| p.cache_dir().to_path_buf())
        .unwrap_or_else(in_temp)
}

/// This process's entry: written on `register`, rewritten by `update`,
/// removed (with an owned trace) when dropped.
pub struct Registration {
    path: PathBuf,
    entry: Entry,
}

impl Registration {
    pub fn register(mut entry: Entry) -> std::io::Result<Registration> {
        entry.pid_start = entry.pid_start.or_else(|| start_time(entry.pid));
        let path = dir()?.join(format!("{}.json", entry.pid));
        let r = Registration { path, entry };
        r.write()?;
        Ok(r)
    }

    pub fn entry(&self) -> &Entry {
        &self.entry
    }

    /// Change the entry and rewrite it (replaced whole: a reader never
    /// sees half of it).
    pub fn update(&mut self, f: impl FnOnce(&mut Entry)) {
        let before = self.entry.clone();
        f(&mut self.entry);
        if self.entry != before {
            let _ = self.write();
        }
    }

    fn write(&self) -> std::io::Result<()> {
        let tmp = self.path.with_extension("json.tmp");
        let mut f = crate::files::private_file(
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true),
        )
        .open(&tmp)?;
        serde_json::to_writer(&mut f, &self.entry)?;
        f.write_all(b"\n")?;
        drop(f);
        std::fs::rename(&tmp, &self.path)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(d) = self.path.parent() {
            remove_entry(d, &self.path, &self.entry);
        }
    }
}

/// A fresh trace path in the sessions directory for a proxy without
/// `--record`.
pub fn owned_trace_path(pid: u32) -> std::io::Result<PathBuf> {
    Ok(owned_trace_in(&dir()?, pid))
}

fn owned_trace_in(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.jsonl"))
}

/// Remove the entry file at `path` in the sessions directory `dir`, and the
/// trace the proxy kept there if it kept one. The trace removed is the one
/// this directory gives that pid, never the path the entry names (an entry
/// left behind, or written by anyone, could name any file), and only for an
/// entry filed under its own pid (`PID.json`): another file claiming a pid
/// says nothing about that pid's trace.
fn remove_entry(dir: &Path, path: &Path, entry: &Entry) {
    let _ = std::fs::remove_file(path);
    let filed_under_its_pid = path.file_name() == Some(format!("{}.json", entry.pid).as_ref());
    if entry.owned_trace && filed_under_its_pid {
        let _ = std::fs::remove_file(owned_trace_in(dir, entry.pid));
    }
}

/// The live sessions, oldest first; entries of dead processes are removed
/// on the way.
pub fn list() -> std::io::Result<Vec<Entry>> {
    let d = dir()?;
    let mut out = Vec::new();
    for (n, de) in std::fs::read_dir(&d)?.enumerate() {
        if n >= MAX_ENTRIES {
            break;
        }
        let Ok(de) = de else { continue };
        let path = de.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Some(entry) = read_entry(&path) else {
            continue;
        };
        if entry.is_live() {
            out.push(entry);
        } else {
            remove_entry(&d, &path, &entry);
        }
    }
    crate::sort::by_key(&mut out, |e| (e.started_ms, e.pid));
    Ok(out)
}

/// Is `entry` still filed although its proxy is gone? A proxy that ends
/// removes its entry before it exits; one killed (or crashed) leaves it
/// behind until someone lists the sessions and prunes it.
pub fn left_behind(entry: &Entry) -> bool {
    let Ok(d) = dir() else { return false };
    read_entry(&d.join(format!("{}.json", entry.pid)))
        .is_some_and(|e| e.pid == entry.pid && e.pid_start == entry.pid_start)
}

fn read_entry(path: &Path) -> Option<Entry> {
    let f = crate::files::open_regular(path, false).ok()?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(f, MAX_ENTRY_BYTES), &mut text).ok()?;
    serde_json::from_str(&text).ok()
}

/// Why no one live session is found; the text says what there is to
/// choose from.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error("cannot read the sessions directory: {0}")]
    Dir(#[source] std::io::Error),
    #[error("no live proxy session on this machine (start one with `mcpscope proxy -- CMD`)")]
    NoSession,
    #[error("no live proxy session named {0:?}: there is none on this machine")]
    NoneNamed(String),
    /// `live`: the sessions there are, listed.
    #[error("no live proxy session named {name:?}; live: {live}")]
    NotLive { name: String, live: String },
    /// `matching`: the sessions the name matches, listed.
    #[error("several live proxy sessions match; name one (or its pid): {matching}")]
    Several { matching: String },
}

/// The live session named `name` (or with that pid); without a name, the
/// only one. The error says what there is to choose from.
pub fn find(name: Option<&str>) -> Result<Entry, FindError> {
    let all = list().map_err(FindError::Dir)?;
    let names = |v: &[&Entry]| {
        v.iter()
            .map(|e| format!("{} (pid {})", e.name, e.pid))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let matching: Vec<&Entry> = match name {
        None => all.iter().collect(),
        Some(n) => all
            .iter()
            .filter(|e| e.name == n || e.pid.to_string() == n)
            .collect(),
    };
    match (matching.as_slice(), name) {
        ([one], _) => Ok((*one).clone()),
        ([], None) => Err(FindError::NoSession),
        ([], Some(n)) if all.is_empty() => Err(FindError::NoneNamed(n.to_string())),
        ([], Some(n)) => Err(FindError::NotLive {
            name: n.to_string(),
            live: names(&all.iter().collect::<Vec<_>>()),
        }),
        (several, _) => Err(FindError::Several {
            matching: names(several),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn zombies_and_missing_processes_are_not_alive() {
        assert!(alive(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Exited but not reaped (WNOWAIT): a zombie.
        // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid(2).
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waits for our own child without reaping it.
        let r = unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
        assert_eq!(r, 0);
        assert!(!alive(pid));
        child.wait().unwrap();
        assert!(!alive(pid));
    }

    #[test]
    fn an_entry_whose_pid_was_reused_is_not_live() {
        let me = std::process::id();
        let started = start_time(me).expect("our own start time");
        let entry = |pid_start| Entry {
            name: "x".into(),
            pid: me,
            transport: "stdio".into(),
            server: vec![],
            trace: PathBuf::from("/nonexistent"),
            owned_trace: false,
            started: String::new(),
            started_ms: 0,
            events: 0,
            findings: None,
            hosts: Vec::new(),
            unobserved_bytes: 0,
            unobserved_exchanges: 0,
            requests_waited: 0,
            intercept: None,
            pid_start,
        };
        assert!(entry(Some(started)).is_live());
        assert!(entry(None).is_live(), "an entry without a start time");
        // Our pid, but the proxy that wrote the entry started at another time.
        assert!(!entry(Some(started + 1)).is_live());
    }
}
