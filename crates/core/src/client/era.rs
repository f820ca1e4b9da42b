//! The 2026-07-28 stateless era: `server/discover` instead of a handshake,
//! the `_meta` envelope on every request, per-request log levels, and
//! `input_required` results answered and retried. `start` chooses the era per
//! `--protocol` (the probe and any fallback are visible in the trace).

use super::link::Link;
use super::options::{EraChoice, Limits};
use super::pending::Gone;
use super::{ClientError, Reply, Session};
use crate::event::{Event, Loss};
use crate::protocol::Revision;
use crate::protocol::meta::{self, ResultType};
use crate::protocol::methods;
use crate::protocol::views::InitializeResult;
use serde_json::{Map, Value, json};
use std::sync::atomic::Ordering;

/// `input_required` rounds before giving up (as the official SDKs do).
const MAX_INPUT_ROUNDS: usize = 10;
/// `UnsupportedProtocolVersionError`: `data.supported` lists what the server speaks.
pub const UNSUPPORTED_VERSION: i64 = -32022;

impl Session {
    pub fn is_modern(&self) -> bool {
        self.modern.load(Ordering::Relaxed)
    }

    /// The capabilities mcpscope declares (the same in both eras).
    pub(super) fn client_capabilities(&self) -> Value {
        let mut caps = Map::new();
        if self.opts.ask_user {
            // The user edits the list; the server hears of each change.
            caps.insert("roots".into(), json!({"listChanged": true}));
        } else if !self.opts.roots.is_empty() {
            caps.insert("roots".into(), json!({"listChanged": false}));
        }
        if self.opts.elicit.is_some() {
            caps.insert("elicitation".into(), json!({}));
        } else if self.opts.ask_user {
            // A person can follow a URL; headless answers cannot.
            caps.insert("elicitation".into(), json!({"form": {}, "url": {}}));
        }
        if self.opts.sample.is_some() || self.opts.ask_user {
            caps.insert("sampling".into(), json!({}));
        }
        if self.client_tasks_declared() {
            let mut requests = Map::new();
            // The user answers what the options do not (the TUI's forms).
            if self.opts.sample.is_some() || self.opts.ask_user {
                requests.insert("sampling".into(), json!({"createMessage": {}}));
            }
            if self.opts.elicit.is_some() || self.opts.ask_user {
                requests.insert("elicitation".into(), json!({"create": {}}));
            }
            caps.insert(
                "tasks".into(),
                json!({"list": {}, "cancel": {}, "requests": requests}),
            );
        }
        if self.is_modern() {
            // Per request, in the stateless era: mcpscope follows any task
            // handle a `tools/call` is answered with.
            caps.insert(
                "extensions".into(),
                json!({crate::protocol::task::EXTENSION: {}}),
            );
        }
        Value::Object(caps)
    }

    /// Client-side tasks (2025-11-25 handshakes only, chosen or fallen back
    /// to by `auto`): offered for the server requests mcpscope was told how
    /// to answer, or the user answers.
    pub(super) fn client_tasks_declared(&self) -> bool {
        self.opts.era != EraChoice::Modern
            && !self.is_modern()
            && self.opts.revision == Revision::V2025_11_25
            && (self.opts.sample.is_some() || self.opts.elicit.is_some() || self.opts.ask_user)
    }

    /// Stateless era: merge the required `_meta` keys into a request's params.
    pub(super) fn with_envelope(&self, params: Option<Value>) -> Option<Value> {
        if !self.is_modern() {
            return params;
        }
        let mut params = match params {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let envelope = params.entry(meta::META).or_insert_with(|| json!({}));
        if let Value::Object(envelope) = envelope {
            envelope.insert(
                meta::PROTOCOL_VERSION.into(),
                json!(Revision::V2026_07_28.as_str()),
            );
            envelope.insert(meta::CLIENT_CAPABILITIES.into(), self.client_capabilities());
            envelope.insert(
                meta::CLIENT_INFO.into(),
                json!({"name": self.opts.client_name, "version": env!("CARGO_PKG_VERSION")}),
            );
            if let Some(level) = *self.log_level.lock().unwrap_or_else(|e| e.into_inner()) {
                envelope.insert(meta::LOG_LEVEL.into(), json!(level.as_str()));
            }
        }
        Some(Value::Object(params))
    }

    fn set_modern(&self, on: bool) {
        self.modern.store(on, Ordering::Relaxed);
    }

    /// Establish the session in the era `--protocol` asked for.
    pub async fn start(&self) -> Result<InitializeResult, ClientError> {
        match self.opts.era {
            EraChoice::Handshake => self.initialize().await,
            EraChoice::Modern => {
                let r = self.discover(None).await?;
                self.maybe_listen(&r).await;
                Ok(r)
            }
            EraChoice::Auto => {
                // The user's own limits bound the probe too: `--timeout 1`
                // means no wait of 5 s for an answer that may never come.
                let h = &self.opts.handshake;
                let limit = [Some(self.opts.probe_timeout), h.idle, h.max]
                    .into_iter()
                    .flatten()
                    .min()
                    .unwrap_or(self.opts.probe_timeout);
                match self.discover(Some(limit)).await {
                    Ok(r) => {
                        self.maybe_listen(&r).await;
                        Ok(r)
                    }
                    // Refused for want of authorization: `initialize` would
                    // be refused the same way, so the era is not the question.
                    Err(e @ ClientError::Gone(Gone::Transport(Loss::Unauthorized(_)))) => Err(e),
                    Err(e) => {
                        let timed_out = matches!(e, ClientError::Timeout { .. });
                        let refused = matches!(
                            e,
                            ClientError::Rpc { .. }
                                | ClientError::Transport(_)
                                | ClientError::Gone(_)
                        );
                        self.set_modern(false);
                        self.meta(Event::Era {
                            era: "handshake".into(),
                            reason: format!("server/discover probe: {e}"),
                            refused,
                        });
                        if let Link::Http(h) = &self.transport {
                            h.clear_protocol_version();
                        }
                        match self.initialize().await {
                            // A server slower to start than the probe's limit
                            // that speaks only 2026-07-28 refuses the
                            // handshake: discovery again, without the limit.
                            Err(ClientError::Rpc {
                                code: UNSUPPORTED_VERSION,
                                message,
                                ..
                            }) if timed_out => {
                                self.meta(Event::Era {
                                    refused: false,
                                    era: "stateless".into(),
                                    reason: format!(
                                        "initialize refused with {UNSUPPORTED_VERSION} ({message}) after the probe timed out"
                                    ),
                                });
                                let r = self.discover(None).await?;
                                self.maybe_listen(&r).await;
                                Ok(r)
                            }
                            Err(ClientError::Rpc { code, message, .. }) => {
                                Err(super::initialize_rejected(code, &message))
                            }
                            other => other,
                        }
                    }
                }
            }
        }
    }

    /// `server/discover` with the 2026-07-28 envelope.
    async fn discover(
        &self,
        probe: Option<std::time::Duration>,
    ) -> Result<InitializeResult, ClientError> {
        self.set_modern(true);
        if let Link::Http(h) = &self.transport {
            h.set_protocol_version(Revision::V2026_07_28.as_str());
        }
        let limits = match probe {
            Some(p) => Limits {
                idle: None,
                max: Some(p),
            },
            None => self.opts.handshake,
        };
        let mut outcome = self.request(methods::SERVER_DISCOVER, None, limits).await;
        if let Err(ClientError::Rpc {
            code: UNSUPPORTED_VERSION,
            data,
            ..
        }) = &outcome
        {
            // A modern server lists the versions it speaks. The spec asks a
            // client to retry with an advertised version rather than fall
            // back; ours is the only modern one, so when it is listed it is
            // retried once, and a second rejection is final.
            let supported: Vec<String> = data
                .as_ref()
                .and_then(|d| d.get("supported"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            let modern = Revision::V2026_07_28;
            if speaks(supported.iter().map(String::as_str), modern) {
                self.meta(Event::VersionRetry {
                    protocol_version: modern.to_string(),
                    supported: supported.clone(),
                });
                outcome = self.request(methods::SERVER_DISCOVER, None, limits).await;
            }
        }
        let reply = match outcome {
            Ok(r) => r,
            Err(e @ ClientError::Rpc { .. }) if probe.is_some() => return Err(e),
            Err(ClientError::Rpc { code, message, .. }) => {
                return Err(ClientError::Handshake(format!(
                    "the server rejected server/discover: JSON-RPC error {code}: {message}"
                )));
            }
            Err(e) if probe.is_some() => return Err(e),
            Err(e) => return Err(ClientError::Handshake(e.to_string())),
        };
        let r = &reply.result;
        let versions: Vec<&str> = r
            .get("supportedVersions")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let modern = Revision::V2026_07_28;
        if !versions.is_empty() && !speaks(versions.iter().copied(), modern) {
            return Err(ClientError::Handshake(format!(
                "the server supports {} but not {modern}",
                versions.join(", ")
            )));
        }
        // The probe takes only a discovery for a server: an older one that
        // answers whatever it is sent (with its `initialize` result, or
        // `{}`) has not said it speaks this era, and the SDK clients
        // require `supportedVersions` too. `--protocol modern` takes the
        // answer as given: the user chose the era.
        if probe.is_some() && versions.is_empty() {
            let what = match r.get("protocolVersion").and_then(Value::as_str) {
                Some(v) => format!(
                    "an initialize result (protocolVersion {})",
                    crate::protocol::sanitize::one_line_max(v, 40)
                ),
                None => "a result without supportedVersions".into(),
            };
            return Err(ClientError::Handshake(format!(
                "the answer was {what}, not a discovery"
            )));
        }
        let init = InitializeResult::from_discovery(r);
        self.meta(Event::Negotiated {
            era: Some("stateless".into()),
            requested: None,
            protocol_version: modern.to_string(),
            supported: None,
            supported_versions: Some(json!(versions)),
            server_info: json!(init.server_info),
            capabilities: json!(init.capabilities),
        });
        *self.server.lock().unwrap_or_else(|e| e.into_inner()) = Some(init.clone());
        Ok(init)
    }

    /// MRTR: while a result says `input_required`, answer its `inputRequests`
    /// (elicitation per `--elicit`, roots per `--root`) and retry the original
    /// request with `inputResponses` and the echoed `requestState`. Each
    /// retry is a new request with a new id. Input mcpscope cannot give ends
    /// the loop with the `input_required` result itself.
    pub async fn drive_input_required(
        &self,
        method: &str,
        params: Value,
        mut reply: Reply,
        limits: Limits,
    ) -> Result<Reply, ClientError> {
        for _ in 0..MAX_INPUT_ROUNDS {
            if ResultType::of(&reply.result) != Some(ResultType::InputRequired) {
                return Ok(reply);
            }
            let mut responses = Map::new();
            if let Some(reqs) = reply.result.get("inputRequests").and_then(Value::as_object) {
                for (key, req) in reqs {
                    match self.answer_input(req, reply.seq) {
                        Some(answer) => {
                            responses.insert(key.clone(), answer);
                        }
                        None => return Ok(reply),
                    }
                }
            }
            let mut retry = params.clone();
            if let Value::Object(m) = &mut retry {
                m.insert("inputResponses".into(), Value::Object(responses));
                if let Some(state) = reply.result.get("requestState") {
                    m.insert("requestState".into(), state.clone());
                }
            }
            reply = self.request(method, Some(retry), limits).await?;
        }
        Err(ClientError::Protocol(format!(
            "the server asked for input more than {MAX_INPUT_ROUNDS} times"
        )))
    }

    /// One `inputRequests` entry of the result at `seq`.
    fn answer_input(&self, req: &Value, seq: u64) -> Option<Value> {
        let method = req.get("method").and_then(Value::as_str)?;
        let params = req.get("params").cloned().unwrap_or(Value::Null);
        super::answer::answer(self, method, &params, (None, seq)).ok()
    }
}

/// Does a list of version strings (a server's `supported` or
/// `supportedVersions`) name `revision`?
fn speaks<'a>(mut versions: impl Iterator<Item = &'a str>, revision: Revision) -> bool {
    versions.any(|v| v.parse::<Revision>().ok() == Some(revision))
}
