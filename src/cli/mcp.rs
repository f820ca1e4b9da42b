//! `mcpscope mcp`: mcpscope itself as an MCP server over stdio (the
//! `initialize` handshake), so a coding agent can check the server it is
//! editing. Its tools — `call`, `check`, `test`, `diff` — run this binary's
//! own commands and answer with their JSON reports (the grouped findings
//! with their fix). They reach only the servers named when it was started
//! (`--demo`, the entries of `--config`, a command after `--`); no tool
//! argument starts a process, and the files they name (test files,
//! recordings) must be inside the working directory.

use crate::protocol::Revision;
use crate::protocol::sanitize::one_line;
use clap::Args;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

#[derive(Args, Debug, Clone)]
pub struct McpArgs {
    /// Offer the built-in demo server, named `demo`.
    #[arg(long)]
    pub demo: bool,
    /// Offer every server of this mcpServers/servers config file, by its name.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Offer this stdio server, named `default`, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// A tool's command runs at most this long.
const TOOL_LIMIT: Duration = Duration::from_secs(600);
/// A tool's command's output kept, each of stdout and stderr.
const OUTPUT_LIMIT: u64 = 8 << 20;
/// How long calls in flight may still answer once the host closed stdin.
const EOF_GRACE: Duration = Duration::from_secs(5);
/// Tool commands running at once.
const MAX_RUNNING: usize = 4;
/// A request line longer than this is refused, not buffered.
const LINE_LIMIT: usize = 4 << 20;

/// Why `mcpscope mcp` cannot start (its servers), or why a tool's path or
/// command failed (the text goes back to the host as the tool's error).
#[derive(Debug, thiserror::Error)]
enum McpError {
    #[error("{}: {source}", path.display())]
    ConfigRead {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    ConfigJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{}: no \"mcpServers\" or \"servers\" object", path.display())]
    NoServers { path: PathBuf },
    #[error("mcp needs a server to offer: --demo, --config FILE or -- CMD")]
    NothingToOffer,
    /// The working directory itself, or this binary, cannot be found;
    /// or the command could not be started or waited for.
    #[error("{0}")]
    Io(#[source] std::io::Error),
    #[error("{path}: {source}")]
    Path {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0} is outside the working directory")]
    Outside(String),
    #[error("the command ran over {} s and was stopped", TOOL_LIMIT.as_secs())]
    RanOver,
}

/// The servers a tool may name, each as the command-line arguments that name it.
fn servers(a: &McpArgs) -> Result<Vec<(String, Vec<String>)>, McpError> {
    let mut out = Vec::new();
    if a.demo {
        out.push(("demo".to_string(), vec!["--demo".to_string()]));
    }
    if let Some(path) = &a.config {
        let text =
            crate::files::read_small(path, crate::files::MAX_CONFIG_BYTES).map_err(|source| {
                McpError::ConfigRead {
                    path: path.clone(),
                    source,
                }
            })?;
        let root: Value = serde_json::from_str(&text).map_err(|source| McpError::ConfigJson {
            path: path.clone(),
            source,
        })?;
        let entries = ["mcpServers", "servers"]
            .iter()
            .find_map(|k| root.get(k).and_then(Value::as_object))
            .ok_or_else(|| McpError::NoServers { path: path.clone() })?;
        for name in entries.keys() {
            let p = path.display().to_string();
            out.push((
                name.clone(),
                vec!["--config".into(), p, "--server".into(), name.clone()],
            ));
        }
    }
    if !a.command.is_empty() {
        let mut v = vec!["--".to_string()];
        v.extend(a.command.iter().cloned());
        out.push(("default".to_string(), v));
    }
    if out.is_empty() {
        return Err(McpError::NothingToOffer);
    }
    Ok(out)
}

fn tools(names: &[String]) -> Value {
    let server = json!({"type": "string", "enum": names, "description": "one of the servers mcpscope mcp was started with"});
    let args = json!({"type": "object", "description": "the tool's arguments"});
    let token = json!({"type": "string", "enum": ["auto", "none"], "description": "send a progress token (auto) or not"});
    json!([
        {
            "name": "check",
            "description": "Call a tool of a server and check every frame against mcpscope's protocol rules (progress, logs, notification order, results). Returns the report: findings grouped by cause with how to fix each, and per-call statistics.",
            "inputSchema": {"type": "object", "properties": {"server": server, "tool": {"type": "string"}, "arguments": args, "token": token}, "required": ["server", "tool"]},
        },
        {
            "name": "call",
            "description": "Call a tool of a server and return its result, with the progress, logs and findings seen on the way.",
            "inputSchema": {"type": "object", "properties": {"server": server, "tool": {"type": "string"}, "arguments": args, "token": token}, "required": ["server", "tool"]},
        },
        {
            "name": "test",
            "description": "Run a test file (or a directory of them) inside the working directory: each case's calls and expectations, with the findings and their fixes.",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        },
        {
            "name": "diff",
            "description": "Compare two recorded sessions inside the working directory: listings, calls, progress, notification order, findings.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a", "b"]},
        },
    ])
}

/// A path a tool names: relative or absolute, it must resolve (links
/// followed) inside the working directory.
fn inside_cwd(p: &str) -> Result<PathBuf, McpError> {
    let cwd = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .map_err(McpError::Io)?;
    let full = cwd
        .join(p)
        .canonicalize()
        .map_err(|source| McpError::Path {
            path: p.to_string(),
            source,
        })?;
    if full.starts_with(&cwd) {
        Ok(full)
    } else {
        Err(McpError::Outside(p.to_string()))
    }
}

/// The command line of a `tools/call`, or why not.
fn command_of(
    name: &str,
    a: &Value,
    servers: &[(String, Vec<String>)],
) -> Result<Vec<String>, String> {
    let text = |k: &str| {
        a.get(k)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{name} needs \"{k}\" (a string)"))
    };
    let server = |a: &Value| -> Result<Vec<String>, String> {
        let n = a
            .get("server")
            .and_then(Value::as_str)
            .ok_or("\"server\" is required")?;
        servers
            .iter()
            .find(|(s, _)| s == n)
            .map(|(_, args)| args.clone())
            .ok_or_else(|| {
                format!(
                    "no server {n:?}: offered are {}",
                    servers
                        .iter()
                        .map(|s| s.0.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    };
    let call = |verb: &str, extra: &[&str]| -> Result<Vec<String>, String> {
        // `--tool=NAME`: a name that starts with `-` is still the name.
        let mut v = vec![verb.to_string(), format!("--tool={}", text("tool")?)];
        if let Some(args) = a.get("arguments") {
            if !args.is_object() {
                return Err("\"arguments\" must be an object".into());
            }
            v.push(format!("--args={args}"));
        }
        match a.get("token").and_then(Value::as_str) {
            None | Some("auto") => {}
            Some("none") => v.extend(["--token".into(), "none".into()]),
            Some(other) => return Err(format!("\"token\" is auto or none, not {other:?}")),
        }
        v.extend(extra.iter().map(|s| s.to_string()));
        // The server last: a stdio command takes everything after `--`.
        v.extend(server(a)?);
        Ok(v)
    };
    match name {
        "check" => call("check", &["--format", "json"]),
        "call" => call("call", &["--json"]),
        "test" => {
            let p = inside_cwd(text("path")?).map_err(|e| e.to_string())?;
            Ok(vec![
                "test".into(),
                p.display().to_string(),
                "--format".into(),
                "json".into(),
            ])
        }
        "diff" => {
            let inside = |k: &str| inside_cwd(text(k)?).map_err(|e| e.to_string());
            let (x, y) = (inside("a")?, inside("b")?);
            Ok(vec![
                "diff".into(),
                x.display().to_string(),
                y.display().to_string(),
                "--format".into(),
                "json".into(),
            ])
        }
        other => Err(format!("no tool {other:?}")),
    }
}

/// Run this binary with `args`: exit code, stdout, stderr (each bounded).
async fn run_self(args: &[String]) -> Result<(i32, String, String), McpError> {
    let exe = std::env::current_exe().map_err(McpError::Io)?;
    let mut child = tokio::process::Command::new(exe)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(McpError::Io)?;
    let (mut out, mut err) = (String::new(), String::new());
    let (so, se) = (child.stdout.take(), child.stderr.take());
    let read = async {
        let a = async {
            if let Some(s) = so {
                let _ = s.take(OUTPUT_LIMIT).read_to_string(&mut out).await;
            }
        };
        let b = async {
            if let Some(s) = se {
                let _ = s.take(OUTPUT_LIMIT).read_to_string(&mut err).await;
            }
        };
        tokio::join!(a, b);
        child.wait().await
    };
    match tokio::time::timeout(TOOL_LIMIT, read).await {
        Ok(Ok(status)) => Ok((status.code().unwrap_or(130), out, err)),
        Ok(Err(e)) => Err(McpError::Io(e)),
        Err(_) => Err(McpError::RanOver),
    }
}

/// The `tools/call` result for a finished command.
fn result_of(name: &str, code: i32, out: &str, err: &str) -> Value {
    let report: Option<Value> = serde_json::from_str(out).ok();
    // A usage error (2) or a failure to run is the tool's error; findings
    // and failed expectations (1) are what the agent asked to know.
    let is_error = !matches!(code, 0 | 1);
    let mut text = format!("mcpscope {name}: exit {code}");
    let said: Vec<String> = err
        .lines()
        .rev()
        .take(40)
        .map(|l| one_line(l).into_owned())
        .collect();
    match (&report, name) {
        (Some(r), "check") => {
            for g in r["groups"].as_array().into_iter().flatten() {
                text.push_str(&format!(
                    "\n{} ({}) ×{}: {}\n  fix: {}",
                    g["rule"].as_str().unwrap_or_default(),
                    g["severity"].as_str().unwrap_or_default(),
                    g["count"],
                    g["message"].as_str().unwrap_or_default(),
                    g["fix"].as_str().unwrap_or_default()
                ));
            }
            text.push_str(if r["summary"]["passed"] == true {
                "\nPASS"
            } else {
                "\nFAIL"
            });
        }
        (Some(r), "call") => {
            text.push_str(&format!("\nresult: {r}"));
            for l in said.iter().rev() {
                text.push('\n');
                text.push_str(l);
            }
        }
        (Some(r), _) => text.push_str(&format!("\n{r}")),
        (None, _) => {
            for l in said.iter().rev() {
                text.push('\n');
                text.push_str(l);
            }
        }
    }
    let mut res = json!({"content": [{"type": "text", "text": text}], "isError": is_error});
    res["structuredContent"] = match report {
        Some(Value::Object(mut o)) if name != "call" => {
            // Every finding is in its group, with the count: the list itself can be long.
            o.remove("findings");
            json!({"exit_code": code, "report": o})
        }
        other => json!({"exit_code": code, "result": other}),
    };
    res
}

fn answer(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string() + "\n"
}

fn error(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
        + "\n"
}

pub async fn run(a: McpArgs) -> i32 {
    let servers = match servers(&a) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("[error] {}", one_line(&e.to_string()));
            return 2;
        }
    };
    let names: Vec<String> = servers.iter().map(|s| s.0.clone()).collect();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    // One writer: answers of concurrent calls never interleave.
    let writer = tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        while let Some(line) = rx.recv().await {
            if out.write_all(line.as_bytes()).await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
    });
    let servers = std::sync::Arc::new(servers);
    let running = std::sync::Arc::new(tokio::sync::Semaphore::new(MAX_RUNNING));
    let mut input = BufReader::new(tokio::io::stdin());
    let mut calls = tokio::task::JoinSet::new();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // A line is read up to the limit; past it, the rest of the line is
        // skipped, never held.
        let Ok(n) = (&mut input)
            .take(LINE_LIMIT as u64 + 1)
            .read_until(b'\n', &mut buf)
            .await
        else {
            break;
        };
        if n == 0 {
            break;
        }
        if buf.len() > LINE_LIMIT && !buf.ends_with(b"\n") {
            let _ = tx.send(error(&Value::Null, -32600, "request too large"));
            let mut rest = Vec::new();
            loop {
                rest.clear();
                match (&mut input)
                    .take(64 * 1024)
                    .read_until(b'\n', &mut rest)
                    .await
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) if rest.ends_with(b"\n") => break,
                    Ok(_) => {}
                }
            }
            continue;
        }
        let line = String::from_utf8_lossy(&buf);
        if line.trim().is_empty() {
            continue;
        }
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            let _ = tx.send(error(&Value::Null, -32700, "parse error"));
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue; // a notification: nothing to answer
        };
        match msg["method"].as_str().unwrap_or_default() {
            "initialize" => {
                let asked = msg["params"]["protocolVersion"]
                    .as_str()
                    .unwrap_or_default();
                let known = Revision::ALL
                    .iter()
                    .any(|r| r.as_str() == asked && *r <= Revision::LATEST_HANDSHAKE);
                let version = if known {
                    asked
                } else {
                    Revision::LATEST_HANDSHAKE.as_str()
                };
                let _ = tx.send(answer(
                    &id,
                    json!({
                        "protocolVersion": version,
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "mcpscope", "version": env!("CARGO_PKG_VERSION")},
                        "instructions": "Check the MCP server you are working on: `check` calls a tool and reports protocol findings with fixes; `test` runs test files; `diff` compares recordings.",
                    }),
                ));
            }
            "ping" => {
                let _ = tx.send(answer(&id, json!({})));
            }
            "tools/list" => {
                let _ = tx.send(answer(&id, json!({"tools": tools(&names)})));
            }
            "tools/call" => {
                let name = msg["params"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let args = msg["params"].get("arguments").cloned().unwrap_or(json!({}));
                let (tx, servers, running) = (tx.clone(), servers.clone(), running.clone());
                calls.spawn(async move {
                    // At most a few commands at once; the others wait their turn.
                    let Ok(_slot) = running.acquire_owned().await else {
                        return;
                    };
                    let line = match command_of(&name, &args, &servers) {
                        Err(e) => answer(
                            &id,
                            json!({"content": [{"type": "text", "text": e}], "isError": true}),
                        ),
                        Ok(cmd) => match run_self(&cmd).await {
                            Ok((code, out, err)) => answer(&id, result_of(&name, code, &out, &err)),
                            Err(e) => answer(
                                &id,
                                json!({"content": [{"type": "text", "text": e.to_string()}], "isError": true}),
                            ),
                        },
                    };
                    let _ = tx.send(line);
                });
            }
            _ => {
                let _ = tx.send(error(&id, -32601, "Method not found"));
            }
        }
    }
    // The host closed stdin: the calls in flight get a moment to answer,
    // then end (their children are killed when dropped), and the last
    // answers are written.
    let _ = tokio::time::timeout(EOF_GRACE, async {
        while calls.join_next().await.is_some() {}
    })
    .await;
    calls.shutdown().await;
    drop(tx);
    let _ = writer.await;
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered() -> Vec<(String, Vec<String>)> {
        vec![
            ("demo".into(), vec!["--demo".into()]),
            ("default".into(), vec!["--".into(), "srv".into()]),
        ]
    }

    #[test]
    fn a_tool_reaches_only_an_offered_server_and_the_server_goes_last() {
        let cmd = command_of(
            "check",
            &json!({"server": "default", "tool": "t", "arguments": {"a": 1}}),
            &offered(),
        )
        .unwrap();
        assert_eq!(
            cmd,
            [
                "check",
                "--tool=t",
                "--args={\"a\":1}",
                "--format",
                "json",
                "--",
                "srv"
            ]
        );
        let e = command_of(
            "check",
            &json!({"server": "other", "tool": "t"}),
            &offered(),
        )
        .unwrap_err();
        assert!(e.contains("no server \"other\""), "{e}");
        // An argument cannot smuggle in a flag or a command.
        let cmd = command_of(
            "call",
            &json!({"server": "demo", "tool": "--config=/etc/x"}),
            &offered(),
        )
        .unwrap();
        assert_eq!(cmd[1], "--tool=--config=/etc/x");
        assert!(
            command_of(
                "call",
                &json!({"server": "demo", "tool": "t", "token": "-- sh"}),
                &offered()
            )
            .is_err()
        );
    }

    #[test]
    fn files_outside_the_working_directory_are_refused() {
        assert!(
            inside_cwd("/etc/passwd")
                .unwrap_err()
                .to_string()
                .contains("outside the working directory")
        );
        assert!(inside_cwd("../../../../../../etc/passwd").is_err());
        assert!(inside_cwd("Cargo.toml").is_ok());
    }
}
