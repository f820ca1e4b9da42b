//! SERVER on the command line: `-- CMD ARGS`, `--demo`, `--url`, or an entry
//! of an `mcpServers`-style config file (Claude Desktop, Cursor, Claude Code
//! `.mcp.json`, VS Code `servers`, the official Inspector).

use crate::client::{ClientOptions, ElicitMode, EraChoice, SampleMode};
use crate::protocol::Revision;
use crate::transport::stdio::CommandSpec;
use clap::Args;
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
    /// auto | legacy | modern | a revision (2024-11-05 … 2026-07-28). auto
    /// probes `server/discover` and falls back to `initialize`, as the
    /// official SDK clients do, so a server is seen in the era hosts see it in.
    #[arg(long, default_value = "auto", help_heading = "Server")]
    pub protocol: String,
    /// `--protocol auto`: how long the `server/discover` probe waits, in
    /// seconds, before trying `initialize` (a slow server is then discovered
    /// again) [default: 5].
    #[arg(long, value_name = "SECS", help_heading = "Server")]
    pub probe_timeout: Option<f64>,
    /// Answer roots/list with this path or URI (repeatable; declares `roots`).
    #[arg(long = "root", help_heading = "Server")]
    pub roots: Vec<String>,
    /// Answer elicitation/create: decline, defaults, or accept:JSON (declares
    /// `elicitation`). Both defaults and accept: content are checked against the
    /// requested schema; defaults that cannot satisfy it (a required field without
    /// a default) are declined, said on one `[answer]` line; accept: content that
    /// does not fit is answered cancel and the run exits 2.
    #[arg(long, value_name = "decline|defaults|accept:JSON", value_parser = ElicitMode::parse, help_heading = "Server")]
    pub elicit: Option<ElicitMode>,
    /// Answer sampling/createMessage with this text as the assistant's reply, or
    /// `decline` (declares `sampling`).
    #[arg(long, value_name = "TEXT|decline", value_parser = parse_sample, help_heading = "Server")]
    pub sample: Option<SampleMode>,
    /// 2026-07-28: open a subscriptions/listen stream for list changes, and one
    /// per task of the tasks extension for its status pushes.
    #[arg(long, help_heading = "Server")]
    pub listen: bool,
    /// Memory bound of the event store (e.g. 64MiB, 2GiB; default 2GiB):
    /// the oldest events are evicted beyond it (a recording keeps them). A
    /// frame longer than a quarter of it (at most 256 MiB) is cut to that,
    /// in memory and in the recording, and reported (frame-oversized).
    #[arg(long, value_name = "SIZE", value_parser = crate::trace::size::parse_store_size, help_heading = "Server")]
    pub max_store: Option<usize>,
    /// Keep secrets in recordings (they are redacted by default).
    #[arg(long, help_heading = "Server")]
    pub no_redact: bool,
    /// Send no W3C `traceparent` in the requests' `_meta` (by default each
    /// request starts a trace of its own, SEP-414).
    #[arg(long, help_heading = "Server")]
    pub no_trace_context: bool,
    /// Start no OTLP receiver for the server's spans and logs (by default
    /// `call` and `check` listen on 127.0.0.1 and point a stdio server's
    /// exporter at it; see docs/opentelemetry.md).
    #[arg(long, help_heading = "Server")]
    pub no_otel_receiver: bool,
    /// Listen for the server's OTLP on this loopback HOST:PORT instead of a
    /// new port each session (e.g. 127.0.0.1:4318), so a server already
    /// running can be pointed at it once.
    #[arg(
        long,
        value_name = "HOST:PORT",
        help_heading = "Server",
        conflicts_with = "no_otel_receiver",
        value_parser = crate::otel::receiver::parse_receiver_addr
    )]
    pub otel_receiver: Option<std::net::SocketAddr>,
    #[command(flatten)]
    pub auth: super::auth_args::AuthArgs,
    /// The stdio server command, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

fn parse_sample(s: &str) -> Result<SampleMode, String> {
    Ok(SampleMode::parse(s))
}

use crate::session::Launch;
pub use crate::session::config::{config_from_text, from_config};
use crate::session::spec::{ServerCli, shell_quote};
pub use crate::session::spec::{ServerSpec, UsageError, redact_url};
use crate::session::spec::{check_spec, usage};
use crate::transport::http::Flavor;

impl ServerArgs {
    /// The arguments as a session to start, recording to `record`.
    pub fn launch(&self, record: Option<&Path>) -> Result<Launch, UsageError> {
        Ok(Launch {
            spec: self.resolve()?,
            options: self.client_options()?,
            record: record.map(Path::to_path_buf),
            max_store: self.max_store,
            auth: self.auth_config(super::auth_args::Face::Headless),
        })
    }

    /// The authorization setup: the command line's, with a config entry's
    /// `oauth` settings where the command line gives none.
    pub fn auth_config(&self, face: super::auth_args::Face) -> Option<crate::auth::AuthConfig> {
        let mut cfg = self.auth.config(face)?;
        if let Some(path) = &self.config
            && let Ok(text) = crate::files::read_small(path, crate::files::MAX_CONFIG_BYTES)
        {
            let o = crate::session::config::oauth_from_text(&text, self.server.as_deref());
            if cfg.client_id.is_none() {
                cfg.client_id = o.client_id;
                cfg.client_secret = cfg.client_secret.or(o.client_secret);
            }
            cfg.callback_port = cfg.callback_port.or(o.callback_port);
        }
        Some(cfg)
    }

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
                flavor: match self.transport.as_deref() {
                    Some("http") => Flavor::Streamable,
                    Some("sse") => Flavor::Legacy,
                    _ => Flavor::Auto,
                },
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
            // Empty where the arguments are built in code: the command line's default.
            "auto" | "" => (EraChoice::Auto, Revision::LATEST_HANDSHAKE),
            other => match other.parse::<Revision>().map_err(usage)? {
                r if r.era() == crate::protocol::Era::Stateless => (EraChoice::Modern, r),
                r => (EraChoice::Handshake, r),
            },
        };
        // Unset (also where the arguments are built in code): the client's own.
        let probe = match self.probe_timeout {
            None => ClientOptions::default().probe_timeout,
            Some(p) if p.is_finite() && p > 0.0 && p <= 3600.0 => {
                std::time::Duration::from_secs_f64(p)
            }
            Some(_) => {
                return Err(usage(
                    "--probe-timeout must be a positive number of seconds (at most 3600)",
                ));
            }
        };
        Ok(ClientOptions {
            probe_timeout: probe,
            listen: self.listen,
            redact: !self.no_redact,
            trace_context: !self.no_trace_context,
            era,
            revision,
            roots: self.roots.clone(),
            elicit: self.elicit.clone(),
            sample: self.sample.clone(),
            ..ClientOptions::default()
        })
    }
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

/// The server part of the equivalent `mcpscope call` command line. Values
/// of secret-looking variables, headers and arguments are not shown.
pub fn server_cli(a: &ServerArgs) -> ServerCli {
    use crate::protocol::secrets::{redact_argv, redact_pair};
    let hide = |s: &String| redact_pair(s).unwrap_or_else(|| s.clone());
    let mut out: Vec<String> = Vec::new();
    if a.demo {
        out.push("--demo".into());
    }
    if let Some(u) = &a.url {
        out.push(format!("--url {}", shell_quote(&redact_url(u))));
    }
    for h in &a.headers {
        out.push(format!("-H {}", shell_quote(&hide(h))));
    }
    if let Some(c) = &a.config {
        out.push(format!(
            "--config {}",
            shell_quote(&c.display().to_string())
        ));
    }
    if let Some(s) = &a.server {
        out.push(format!("--server {}", shell_quote(s)));
    }
    for e in &a.env {
        out.push(format!("-e {}", shell_quote(&hide(e))));
    }
    if let Some(c) = &a.cwd {
        out.push(format!("--cwd {}", shell_quote(&c.display().to_string())));
    }
    if !matches!(a.protocol.as_str(), "auto" | "") {
        out.push(format!("--protocol {}", shell_quote(&a.protocol)));
    }
    let command = redact_argv(&a.command)
        .iter()
        .map(|c| shell_quote(c))
        .collect::<Vec<_>>()
        .join(" ");
    ServerCli {
        options: out.join(" "),
        command,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments built in code (the conformance client) leave the probe
    /// unset: the client's own limit, not a zero that refuses to run.
    #[test]
    fn unset_probe_timeout_is_the_clients_default() {
        let auto = ServerArgs {
            protocol: "auto".into(),
            ..ServerArgs::default()
        };
        let o = auto.client_options().expect("valid");
        assert_eq!(o.probe_timeout, ClientOptions::default().probe_timeout);
        let bad = ServerArgs {
            probe_timeout: Some(0.0),
            ..auto
        };
        assert!(bad.client_options().is_err());
    }

    /// Without `--protocol` a server is probed as the SDK clients probe it
    /// (`auto`), and the copied command line names only a chosen era.
    #[test]
    fn the_default_protocol_is_auto_and_only_a_chosen_one_is_copied() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cmd {
            #[command(flatten)]
            server: ServerArgs,
        }
        let parsed = Cmd::try_parse_from(["mcpscope", "--demo"]).expect("parses");
        assert_eq!(parsed.server.protocol, "auto");
        let o = parsed.server.client_options().expect("valid");
        assert_eq!(o.era, EraChoice::Auto);
        assert_eq!(
            ServerArgs::default().client_options().expect("valid").era,
            EraChoice::Auto
        );
        assert!(!server_cli(&parsed.server).options.contains("--protocol"));
        let legacy = ServerArgs {
            protocol: "legacy".into(),
            ..parsed.server
        };
        assert_eq!(
            legacy.client_options().expect("valid").era,
            EraChoice::Handshake
        );
        assert!(server_cli(&legacy).options.contains("--protocol legacy"));
    }
}
