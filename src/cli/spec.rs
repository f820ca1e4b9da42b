//! SERVER on the command line: `-- CMD ARGS`, `--demo`, `--url`, or an entry
//! of an `mcpServers`-style config file (Claude Desktop, Cursor, Claude Code
//! `.mcp.json`, VS Code `servers`, the official Inspector).

use crate::client::{ClientOptions, ElicitMode, EraChoice};
use crate::protocol::Revision;
use crate::protocol::secrets::{REDACTED, is_secret_name, redact_json};
use crate::transport::stdio::CommandSpec;
use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

#[derive(Args, Debug, Clone, Default)]
pub struct ServerArgs {
    /// Run the built-in demo server (a child process of this binary).
    #[arg(long, help_heading = "Server")]
    pub demo: bool,
    /// Streamable HTTP (or legacy HTTP+SSE) endpoint.
    #[arg(long, help_heading = "Server")]
    pub url: Option<String>,
    /// Force the HTTP transport flavour.
    #[arg(long, value_parser = ["http", "sse"], help_heading = "Server")]
    pub transport: Option<String>,
    /// Extra HTTP header 'Name: Value' (repeatable).
    #[arg(short = 'H', long = "header", help_heading = "Server")]
    pub headers: Vec<String>,
    /// An mcpServers/servers JSON config file.
    #[arg(long, help_heading = "Server")]
    pub config: Option<PathBuf>,
    /// Which server of --config to run.
    #[arg(long, help_heading = "Server")]
    pub server: Option<String>,
    /// Environment variable for the server, KEY=VALUE (repeatable).
    #[arg(short = 'e', long = "env", help_heading = "Server")]
    pub env: Vec<String>,
    /// Working directory of the server process.
    #[arg(long, help_heading = "Server")]
    pub cwd: Option<PathBuf>,
    /// legacy | modern | auto | a revision (2024-11-05 … 2026-07-28).
    #[arg(long, default_value = "legacy", help_heading = "Server")]
    pub protocol: String,
    /// Answer roots/list with this path or URI (repeatable; declares `roots`).
    #[arg(long = "root", help_heading = "Server")]
    pub roots: Vec<String>,
    /// Answer elicitation/create (declares `elicitation`).
    #[arg(long, value_enum, help_heading = "Server")]
    pub elicit: Option<ElicitArg>,
    /// 2026-07-28: open a subscriptions/listen stream for list changes.
    #[arg(long, help_heading = "Server")]
    pub listen: bool,
    /// Memory bound of the event store (e.g. 64MiB, 2GiB; default 2GiB):
    /// the oldest events are evicted beyond it (a recording keeps them).
    #[arg(long, value_name = "SIZE", value_parser = crate::trace::size::parse_store_size, help_heading = "Server")]
    pub max_store: Option<usize>,
    /// Keep secrets in recordings (they are redacted by default).
    #[arg(long, help_heading = "Server")]
    pub no_redact: bool,
    /// The stdio server command, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitArg {
    Decline,
    Defaults,
}

/// A usage or configuration problem: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

fn usage(msg: impl Into<String>) -> UsageError {
    UsageError(msg.into())
}

/// A resolved server to connect to.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerSpec {
    Stdio {
        name: String,
        cmd: CommandSpec,
    },
    Http {
        name: String,
        url: String,
        headers: Vec<(String, String)>,
    },
}

impl ServerSpec {
    pub fn name(&self) -> &str {
        match self {
            ServerSpec::Stdio { name, .. } | ServerSpec::Http { name, .. } => name,
        }
    }

    /// The spec as JSON for trace headers, secrets redacted unless asked not to.
    pub fn to_json(&self, redacted: bool) -> Value {
        let mut v = match self {
            ServerSpec::Stdio { name, cmd } => json!({
                "name": name, "transport": "stdio", "argv": cmd.argv,
                "env": cmd.env.iter().map(|(k, v)| (k.clone(), Value::from(v.clone()))).collect::<serde_json::Map<_, _>>(),
                "cwd": cmd.cwd.as_ref().map(|p| p.display().to_string()),
            }),
            ServerSpec::Http { name, url, headers } => json!({
                "name": name, "transport": "http", "url": url,
                "headers": headers.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>(),
            }),
        };
        if redacted {
            redact_json(&mut v);
            if let ServerSpec::Http { url, .. } = self {
                v["url"] = Value::String(redact_url(url));
            }
        }
        v
    }
}

impl ServerArgs {
    /// Which server the arguments name. Exactly one way must be used.
    pub fn resolve(&self) -> Result<ServerSpec, UsageError> {
        let ways = [
            self.demo,
            self.url.is_some(),
            self.config.is_some(),
            !self.command.is_empty(),
        ]
        .iter()
        .filter(|w| **w)
        .count();
        if ways == 0 {
            return Err(usage(
                "no server given: use `-- CMD [ARGS...]`, --demo, --url URL or --config FILE --server NAME",
            ));
        }
        if ways > 1 {
            return Err(usage(
                "give only one of `-- CMD`, --demo, --url and --config",
            ));
        }
        let env = self
            .env
            .iter()
            .map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .ok_or_else(|| usage(format!("-e expects KEY=VALUE, got {kv:?}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let headers = self
            .headers
            .iter()
            .map(|h| parse_header(h))
            .collect::<Result<Vec<_>, _>>()?;
        let mut spec = if self.demo {
            let exe = std::env::current_exe()
                .map_err(|e| usage(format!("cannot find this executable: {e}")))?;
            ServerSpec::Stdio {
                name: "mcpscope-demo".into(),
                cmd: CommandSpec {
                    argv: vec![exe.display().to_string(), "demo-server".into()],
                    ..Default::default()
                },
            }
        } else if let Some(url) = &self.url {
            ServerSpec::Http {
                // The name is shown on screen: no credentials in it.
                name: redact_url(url),
                url: url.clone(),
                headers: Vec::new(),
            }
        } else if let Some(path) = &self.config {
            from_config(path, self.server.as_deref())?
        } else {
            let name = Path::new(&self.command[0])
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            ServerSpec::Stdio {
                name,
                cmd: CommandSpec {
                    argv: self.command.clone(),
                    ..Default::default()
                },
            }
        };
        match &mut spec {
            ServerSpec::Stdio { cmd, .. } => {
                cmd.env.extend(env);
                if self.cwd.is_some() {
                    cmd.cwd = self.cwd.clone();
                }
            }
            ServerSpec::Http { headers: h, .. } => h.extend(headers),
        }
        check_spec(&spec, self.cwd.is_some())?;
        Ok(spec)
    }

    pub fn client_options(&self) -> Result<ClientOptions, UsageError> {
        let (era, revision) = match self.protocol.as_str() {
            "legacy" => (EraChoice::Handshake, Revision::LATEST_HANDSHAKE),
            "modern" => (EraChoice::Modern, Revision::V2026_07_28),
            "auto" => (EraChoice::Auto, Revision::LATEST_HANDSHAKE),
            other => match other.parse::<Revision>().map_err(usage)? {
                r if r.era() == crate::protocol::Era::Stateless => (EraChoice::Modern, r),
                r => (EraChoice::Handshake, r),
            },
        };
        Ok(ClientOptions {
            listen: self.listen,
            redact: !self.no_redact,
            era,
            revision,
            roots: self.roots.clone(),
            elicit: self.elicit.map(|e| match e {
                ElicitArg::Decline => ElicitMode::Decline,
                ElicitArg::Defaults => ElicitMode::Defaults,
            }),
            ..ClientOptions::default()
        })
    }
}

/// What can be known wrong before anything starts: a working directory that
/// does not exist (the spawn error would blame the program), a URL that is
/// not an http(s) URL.
fn check_spec(spec: &ServerSpec, cwd_flag: bool) -> Result<(), UsageError> {
    match spec {
        ServerSpec::Stdio { cmd, name } => {
            if let Some(dir) = &cmd.cwd
                && !dir.is_dir()
            {
                let what = if cwd_flag {
                    format!("--cwd {}", dir.display())
                } else {
                    format!("the working directory {} of server {name:?}", dir.display())
                };
                return Err(usage(format!(
                    "{what}: {}",
                    if dir.exists() {
                        "not a directory"
                    } else {
                        "no such directory"
                    }
                )));
            }
        }
        ServerSpec::Http { url, .. } => match reqwest::Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.has_host() => {}
            Ok(u) => {
                return Err(usage(format!(
                    "--url {}: mcpscope speaks http:// and https:// URLs, not {}:",
                    redact_url(url),
                    u.scheme()
                )));
            }
            Err(e) => {
                return Err(usage(format!(
                    "--url {}: not a valid URL ({e})",
                    crate::protocol::sanitize::one_line(&redact_url(url))
                )));
            }
        },
    }
    Ok(())
}

/// `https://user:pw@host/mcp?api_key=x` → password and secret-named query
/// values replaced.
pub fn redact_url(url: &str) -> String {
    let Ok(mut u) = reqwest::Url::parse(url) else {
        return url.to_string();
    };
    if u.password().is_some() {
        // Brackets would be percent-encoded in userinfo.
        let _ = u.set_password(Some("redacted"));
    }
    let pairs: Vec<(String, String)> = u
        .query_pairs()
        .map(|(k, v)| {
            let v = if is_secret_name(&k) {
                REDACTED.to_string()
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    if !pairs.is_empty() {
        u.query_pairs_mut().clear().extend_pairs(pairs);
    }
    u.to_string()
}

fn parse_header(h: &str) -> Result<(String, String), UsageError> {
    let (k, v) = h
        .split_once(':')
        .ok_or_else(|| usage(format!("-H expects 'Name: Value', got {h:?}")))?;
    let k = k.trim();
    if k.is_empty() || k.contains(char::is_whitespace) {
        return Err(usage(format!("-H: bad header name in {h:?}")));
    }
    Ok((k.to_string(), v.trim().to_string()))
}

/// Read one server out of a config file.
pub fn from_config(path: &Path, server: Option<&str>) -> Result<ServerSpec, UsageError> {
    let text = crate::files::read_small(path, crate::files::MAX_CONFIG_BYTES)
        .map_err(|e| usage(format!("cannot read config {}: {e}", path.display())))?;
    config_from_text(&text, path, server)
}

/// One server out of a config file's text (`path` only names it in errors).
pub fn config_from_text(
    text: &str,
    path: &Path,
    server: Option<&str>,
) -> Result<ServerSpec, UsageError> {
    let root: Value = serde_json::from_str(text)
        .or_else(|_| serde_json::from_str(&strip_jsonc(text)))
        .map_err(|e| usage(format!("config {} is not JSON: {e}", path.display())))?;
    let servers = ["mcpServers", "servers"]
        .iter()
        .find_map(|k| {
            root.get(k)
                .or_else(|| root.get("mcp").and_then(|m| m.get(k)))
        })
        .and_then(Value::as_object)
        .ok_or_else(|| {
            usage(format!(
                "config {} has no \"mcpServers\" or \"servers\" object",
                path.display()
            ))
        })?;
    let names: Vec<&str> = servers.keys().map(String::as_str).collect();
    let name = match server {
        Some(n) => n.to_string(),
        None if names.len() == 1 => names[0].to_string(),
        None => {
            return Err(usage(format!(
                "config {} has several servers; choose one with --server ({})",
                path.display(),
                names.join(", ")
            )));
        }
    };
    let entry = servers.get(&name).ok_or_else(|| {
        usage(format!(
            "no server {name:?} in {} (it has: {})",
            path.display(),
            names.join(", ")
        ))
    })?;
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let pairs = |v: Option<&Value>| -> Vec<(String, String)> {
        v.and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            v.as_str().map_or_else(|| v.to_string(), str::to_string),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    if let Some(url) = entry
        .get("url")
        .or_else(|| entry.get("serverUrl"))
        .and_then(Value::as_str)
    {
        return Ok(ServerSpec::Http {
            name,
            url: url.to_string(),
            headers: pairs(entry.get("headers")),
        });
    }
    let command = entry
        .get("command")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            usage(format!(
                "server {name:?} in {} has neither \"command\" nor \"url\"",
                path.display()
            ))
        })?;
    let mut argv = vec![command.to_string()];
    argv.extend(strings(entry.get("args")));
    Ok(ServerSpec::Stdio {
        name,
        cmd: CommandSpec {
            argv,
            env: pairs(entry.get("env")),
            cwd: entry.get("cwd").and_then(Value::as_str).map(PathBuf::from),
        },
    })
}

/// VS Code writes JSON with comments and trailing commas. Both become
/// spaces, byte for byte (line breaks kept), so a parse error still points at
/// the line and column of the file as written.
fn strip_jsonc(s: &str) -> String {
    let mut b = s.as_bytes().to_vec();
    let mut i = 0;
    // The last comma since the last value: dropped if a `}` or `]` comes
    // next, whatever whitespace and comments stand between.
    let mut comma: Option<usize> = None;
    while i < b.len() {
        match b[i] {
            b'"' => {
                comma = None;
                i += 1;
                while i < b.len() {
                    match b[i] {
                        b'\\' => i += 2,
                        b'"' => {
                            i += 1;
                            break;
                        }
                        _ => i += 1,
                    }
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    b[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end =
                    memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |e| i + 2 + e + 2);
                for c in &mut b[i..end] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = end;
            }
            b',' => {
                comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(c) = comma.take() {
                    b[c] = b' ';
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                comma = None;
                i += 1;
            }
        }
    }
    // Only whole comments (ASCII-delimited) were blanked: still UTF-8.
    String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn config_flavours() {
        let d = tempfile::tempdir().unwrap();
        let claude = write(
            d.path(),
            "claude.json",
            r#"{"mcpServers":{"everything":{"command":"npx","args":["-y","@modelcontextprotocol/server-everything"],"env":{"API_KEY":"s3cret"}},"other":{"command":"x"}}}"#,
        );
        let spec = from_config(&claude, Some("everything")).unwrap();
        let ServerSpec::Stdio { cmd, .. } = &spec else {
            panic!()
        };
        assert_eq!(
            cmd.argv,
            vec!["npx", "-y", "@modelcontextprotocol/server-everything"]
        );
        assert_eq!(cmd.env, vec![("API_KEY".to_string(), "s3cret".to_string())]);
        assert_eq!(spec.to_json(true)["env"]["API_KEY"], "[redacted]");
        assert_eq!(spec.to_json(false)["env"]["API_KEY"], "s3cret");
        let e = from_config(&claude, None).unwrap_err().to_string();
        assert!(
            e.contains("everything, other") || e.contains("other, everything"),
            "{e}"
        );
        assert!(
            from_config(&claude, Some("nope"))
                .unwrap_err()
                .to_string()
                .contains("no server \"nope\"")
        );

        let vscode = write(
            d.path(),
            "mcp.json",
            "{\n // comment\n \"servers\": {\"gh\": {\"type\": \"http\", \"url\": \"https://x/mcp\", \"headers\": {\"Authorization\": \"Bearer t\"},},},\n}",
        );
        let spec = from_config(&vscode, None).unwrap();
        assert_eq!(
            spec,
            ServerSpec::Http {
                name: "gh".into(),
                url: "https://x/mcp".into(),
                headers: vec![("Authorization".into(), "Bearer t".into())]
            }
        );
        assert_eq!(
            spec.to_json(true)["headers"][0],
            "Authorization: [redacted]"
        );

        let settings = write(
            d.path(),
            "settings.json",
            r#"{"mcp":{"servers":{"a":{"command":"a","cwd":"/tmp"}}}}"#,
        );
        let ServerSpec::Stdio { cmd, .. } = from_config(&settings, None).unwrap() else {
            panic!()
        };
        assert_eq!(cmd.cwd, Some(PathBuf::from("/tmp")));
        assert!(from_config(&write(d.path(), "bad.json", "{}"), None).is_err());
    }

    #[test]
    fn jsonc_keeps_strings() {
        let s = strip_jsonc(r#"{"a": "http://x,/*y*/", /* c */ "b": [1, 2,],}"#);
        let v: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["a"], "http://x,/*y*/");
        assert_eq!(v["b"], json!([1, 2]));
    }
}
