//! The token cache: one JSON file (`auth.json`) in the platform data
//! directory (`directories`; `$MCPSCOPE_DATA_DIR` overrides), mode 0600 in
//! a 0700 directory, written whole to a temporary file and renamed into
//! place so a crash never leaves half a file. A directory other users may
//! write to is neither read nor written (`files::private_dir`): whoever
//! can write there can replace the cache with one of theirs. One entry per MCP server
//! URL, holding the authorization server it was authorized by (issuer,
//! endpoints), the client identity registered there and the tokens.
//! Debug output of these types never shows a secret.

use super::AuthError;
use super::discovery::ServerMetadata;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::Write;
use std::path::PathBuf;

const FILE: &str = "auth.json";
const FORMAT: u32 = 1;
/// A cache file is small; anything bigger is not ours.
const MAX_FILE: u64 = 4 << 20;
/// The cache file is 0600 itself: others may list the directory (an
/// existing data directory may be 0755), never write to it.
const OTHERS: crate::files::Others = crate::files::Others::Read;

/// How mcpscope is known to an authorization server.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Registration {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub auth_method: String,
    /// The redirect URI registered with it (dynamic registration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    /// `pre-registered`, `metadata-document` or `dynamic`.
    pub how: String,
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "[redacted]"),
            )
            .field("auth_method", &self.auth_method)
            .field("how", &self.how)
            .finish()
    }
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Tokens {
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// What was granted (the token response's `scope`, else what was asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &"[redacted]")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "[redacted]"),
            )
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .finish()
    }
}

/// One authorized server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The MCP endpoint URL.
    pub server: String,
    pub issuer: String,
    pub resource: String,
    pub meta: ServerMetadata,
    pub client: Registration,
    pub tokens: Tokens,
    /// Unix seconds.
    pub saved: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    #[serde(default)]
    format: u32,
    #[serde(default)]
    entries: Vec<Entry>,
}

/// The cache file's directory.
pub fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("MCPSCOPE_DATA_DIR") {
        return Some(PathBuf::from(d));
    }
    directories::ProjectDirs::from("", "", "mcpscope").map(|p| p.data_dir().to_path_buf())
}

pub fn path() -> Option<PathBuf> {
    dir().map(|d| d.join(FILE))
}

/// Refuse a data directory that exists and is not private; a missing one
/// is made private when the cache is first written.
pub fn check_dir() -> Result<(), AuthError> {
    match dir() {
        Some(d) if d.exists() => {
            crate::files::check_private_dir(&d, OTHERS).map_err(AuthError::CacheDir)
        }
        _ => Ok(()),
    }
}

fn load() -> Result<CacheFile, AuthError> {
    let Some(p) = path() else {
        return Ok(CacheFile::default());
    };
    check_dir()?;
    if !p.exists() {
        return Ok(CacheFile::default());
    }
    let text = match crate::files::read_small(&p, MAX_FILE) {
        Ok(t) => t,
        Err(source) => return Err(AuthError::CacheRead { path: p, source }),
    };
    serde_json::from_str(&text).map_err(|source| AuthError::CacheDamaged { path: p, source })
}

fn save(c: &CacheFile) -> Result<(), AuthError> {
    let dir = dir().ok_or(AuthError::NoDataDir)?;
    crate::files::private_dir(&dir, OTHERS).map_err(AuthError::CacheDir)?;
    let target = dir.join(FILE);
    let tmp = dir.join(format!(".{FILE}.{}", std::process::id()));
    let text = serde_json::to_vec_pretty(c).map_err(AuthError::CacheEncode)?;
    let write = || -> std::io::Result<()> {
        let mut f = crate::files::private_file(
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true),
        )
        .open(&tmp)?;
        f.write_all(&text)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &target)
    };
    write().map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        AuthError::CacheWrite {
            path: target,
            source,
        }
    })
}

/// The cached entry for an MCP server URL.
pub fn get(server: &str) -> Result<Option<Entry>, AuthError> {
    Ok(load()?.entries.into_iter().find(|e| e.server == server))
}

/// Every cached entry.
pub fn all() -> Result<Vec<Entry>, AuthError> {
    Ok(load()?.entries)
}

/// Store (or replace) the entry for its server.
pub fn put(entry: Entry) -> Result<(), AuthError> {
    let mut c = load().unwrap_or_default();
    c.format = FORMAT;
    c.entries.retain(|e| e.server != entry.server);
    c.entries.push(entry);
    save(&c)
}

/// Forget a server (or every server with `None`); how many were removed.
pub fn remove(server: Option<&str>) -> Result<usize, AuthError> {
    let mut c = match load() {
        Ok(c) => c,
        // A damaged file is what `logout --all` is for.
        Err(_) if server.is_none() => CacheFile::default(),
        Err(e) => return Err(e),
    };
    let before = c.entries.len();
    match server {
        Some(s) => c.entries.retain(|e| e.server != s),
        None => c.entries.clear(),
    }
    let removed = before - c.entries.len();
    c.format = FORMAT;
    save(&c)?;
    Ok(removed)
}

/// Now, in Unix seconds.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
