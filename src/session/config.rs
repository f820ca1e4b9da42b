//! A server named by an entry of an `mcpServers`-style config file (Claude
//! Desktop, Cursor, Claude Code `.mcp.json`, VS Code `servers`, the official
//! Inspector); JSON with comments and trailing commas is read too.

use super::spec::{ServerSpec, UsageError, usage};
use crate::transport::http::Flavor;
use crate::transport::stdio::CommandSpec;
use serde_json::Value;
use std::path::{Path, PathBuf};

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
            flavor: Flavor::Auto,
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
pub(crate) fn strip_jsonc(s: &str) -> String {
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

/// Pre-registered OAuth client settings of a config entry (Claude Code's
/// `"oauth": {"clientId": …, "callbackPort": …}`, plus `clientSecret`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthEntry {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub callback_port: Option<u16>,
}

/// The `oauth` object of one server of a config file's text (the server
/// chosen as [`config_from_text`] chooses it); empty when there is none.
pub fn oauth_from_text(text: &str, server: Option<&str>) -> OAuthEntry {
    let Ok(root) = serde_json::from_str::<Value>(text)
        .or_else(|_| serde_json::from_str::<Value>(&strip_jsonc(text)))
    else {
        return OAuthEntry::default();
    };
    let servers = ["mcpServers", "servers"]
        .iter()
        .find_map(|k| {
            root.get(k)
                .or_else(|| root.get("mcp").and_then(|m| m.get(k)))
        })
        .and_then(Value::as_object);
    let entry = match (servers, server) {
        (Some(s), Some(n)) => s.get(n),
        (Some(s), None) if s.len() == 1 => s.values().next(),
        _ => None,
    };
    let Some(o) = entry.and_then(|e| e.get("oauth")) else {
        return OAuthEntry::default();
    };
    let text = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
    OAuthEntry {
        client_id: text("clientId"),
        client_secret: text("clientSecret"),
        callback_port: o
            .get("callbackPort")
            .and_then(Value::as_u64)
            .and_then(|p| u16::try_from(p).ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
                headers: vec![("Authorization".into(), "Bearer t".into())],
                flavor: Flavor::Auto,
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

    #[test]
    fn oauth_settings_of_an_entry() {
        let text = r#"{"mcpServers": {"a": {"url": "https://a/mcp",
            "oauth": {"clientId": "cid", "clientSecret": "sec", "callbackPort": 8123}},
            "b": {"url": "https://b/mcp"}}}"#;
        assert_eq!(
            oauth_from_text(text, Some("a")),
            OAuthEntry {
                client_id: Some("cid".into()),
                client_secret: Some("sec".into()),
                callback_port: Some(8123),
            }
        );
        assert_eq!(oauth_from_text(text, Some("b")), OAuthEntry::default());
        assert_eq!(oauth_from_text(text, None), OAuthEntry::default());
        assert_eq!(oauth_from_text("not json", None), OAuthEntry::default());
    }
}
