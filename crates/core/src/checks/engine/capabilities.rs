//! What the client declared it can do, and the rules that read what either
//! side declared: a server request the client never offered to answer
//! (`server-request-without-capability`), a declared `logging` whose
//! `logging/setLevel` is refused (`logging-setlevel-refused`), and, in a
//! 2026-07-28 session, each feature that revision deprecates (SEP-2577:
//! logging, sampling, roots), said once per feature and side.

use super::Checker;
use crate::checks::finding::Finding;
use crate::checks::rules::Rule;
use crate::protocol::{Era, methods};
use crate::trace::EventRef;
use serde_json::Value;

/// What a client declared (`initialize` capabilities; at 2026-07-28 each
/// request's `io.modelcontextprotocol/clientCapabilities`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct ClientCaps {
    elicitation: bool,
    elicitation_url: bool,
    sampling: bool,
    roots: bool,
}

impl ClientCaps {
    pub(super) fn parse(caps: &Value) -> ClientCaps {
        let has = |k: &str| caps.get(k).is_some_and(|v| !v.is_null());
        ClientCaps {
            elicitation: has("elicitation"),
            elicitation_url: caps
                .get("elicitation")
                .and_then(|e| e.get("url"))
                .is_some_and(|v| !v.is_null()),
            sampling: has("sampling"),
            roots: has("roots"),
        }
    }
}

/// The deprecated features, as bits of what was said already.
#[derive(Debug, Clone, Copy)]
pub(super) enum Deprecated {
    Logging = 1,
    Sampling = 2,
    Roots = 4,
}

impl Deprecated {
    fn name(self) -> &'static str {
        match self {
            Deprecated::Logging => "logging",
            Deprecated::Sampling => "sampling",
            Deprecated::Roots => "roots",
        }
    }
}

/// How a deprecated feature of the server was seen.
#[derive(Debug, Clone, Copy)]
pub(super) enum Observed<'a> {
    /// Declared in this answer (`server/discover result`).
    Declared(&'a str),
    /// Used: the server sent this method.
    Sent(&'a str),
}

/// Once-per-session memory of the deprecation findings, per side.
#[derive(Debug, Default)]
pub(super) struct Told {
    server: u8,
    client: u8,
}

impl Checker {
    /// The capabilities the client declared for the request behind a
    /// server request on `channel`: the session's (handshake era), or
    /// those the request on that stream carried (2026-07-28).
    /// With the seq of the frame that declared them.
    fn caps_for(&self, channel: &str) -> Option<(ClientCaps, u64)> {
        match self.era {
            Era::Handshake => self.client_caps,
            Era::Stateless => self.req_channels.get(channel).and_then(|ri| {
                let r = &self.reqs[*ri];
                r.caps.map(|c| (c, r.seq))
            }),
        }
    }

    /// A request from the server: did the client offer to answer it?
    pub(super) fn judge_server_request(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let method = ev.method.unwrap_or("");
        let feature = match method {
            methods::SAMPLING => Some(Deprecated::Sampling),
            methods::ROOTS_LIST => Some(Deprecated::Roots),
            _ => None,
        };
        if let Some(f) = feature {
            self.deprecated_by_server(ev, f, Observed::Sent(method), out);
        }
        if !matches!(
            method,
            methods::ELICIT | methods::SAMPLING | methods::ROOTS_LIST
        ) {
            return;
        }
        let params: Option<Value> = ev
            .frame()
            .params
            .and_then(|p| serde_json::from_str(p.get()).ok());
        let url_mode = method == methods::ELICIT
            && params
                .as_ref()
                .and_then(|p| p.get("mode"))
                .and_then(Value::as_str)
                == Some("url");
        if method == methods::ELICIT
            && !url_mode
            && let Some(why) = requested_schema_problem(params.as_ref())
        {
            let message = format!(
                "elicitation/create's requestedSchema {why}; form mode asks for a flat object of primitive properties"
            );
            let id = ev.frame().id.clone();
            self.emit(
                out,
                Rule::ElicitationSchemaInvalid,
                vec![ev.seq],
                None,
                id,
                message,
            );
        }
        let Some((caps, declared_at)) = self.caps_for(ev.channel) else {
            return;
        };
        let missing = match method {
            methods::ELICIT if !caps.elicitation => Some("elicitation"),
            methods::ELICIT if url_mode && !caps.elicitation_url => Some("elicitation.url"),
            methods::SAMPLING if !caps.sampling => Some("sampling"),
            methods::ROOTS_LIST if !caps.roots => Some("roots"),
            _ => None,
        };
        let Some(missing) = missing else { return };
        let id = ev
            .frame()
            .id
            .map(|i| format!(" (request {i})"))
            .unwrap_or_default();
        // Keyed by no request: a server that asks on every call has one
        // defect, reported a few times per session, not once per request.
        self.emit(
            out,
            Rule::ServerRequestWithoutCapability,
            vec![declared_at, ev.seq],
            None,
            None,
            format!(
                "the server sent {method}{id} to a client that did not declare the `{missing}` capability; check the client's capabilities before asking"
            ),
        );
    }

    /// The server answered `logging/setLevel` (request `ri`) with an error.
    pub(super) fn setlevel_refused(
        &mut self,
        ev: &EventRef<'_>,
        req_seq: u64,
        code: Option<i64>,
        out: &mut Vec<Finding>,
    ) {
        if code != Some(-32601) || self.logging_declared != Some(true) {
            return;
        }
        let mut seqs: Vec<u64> = self.client.caps_seq.into_iter().collect();
        seqs.extend([req_seq, ev.seq]);
        self.emit(
            out,
            Rule::LoggingSetlevelRefused,
            seqs,
            None,
            ev.frame().id.clone(),
            "the server declared the `logging` capability but answered logging/setLevel with -32601 (method not found); implement logging/setLevel, or do not declare logging".into(),
        );
    }

    /// The server declared or used a deprecated feature (2026-07-28
    /// sessions only), said as it was observed: a server that only declares
    /// `logging` is not said to log.
    pub(super) fn deprecated_by_server(
        &mut self,
        ev: &EventRef<'_>,
        f: Deprecated,
        seen: Observed<'_>,
        out: &mut Vec<Finding>,
    ) {
        if self.era != Era::Stateless || self.told.server & f as u8 != 0 {
            return;
        }
        self.told.server |= f as u8;
        let what = match seen {
            Observed::Declared(answer) => {
                format!("declares the `{}` capability in its {answer}", f.name())
            }
            Observed::Sent(method) => format!("sent {method}"),
        };
        let message = format!(
            "the server {what}: {} is a feature the 2026-07-28 revision deprecates (SEP-2577); it still works, but plan to migrate{}",
            f.name(),
            match f {
                Deprecated::Logging => " (log to stderr for stdio, or to OpenTelemetry)",
                _ => "",
            }
        );
        self.emit(
            out,
            Rule::DeprecatedFeature,
            vec![ev.seq],
            None,
            None,
            message,
        );
    }

    /// The client's request used deprecated features (2026-07-28 sessions only).
    pub(super) fn deprecated_by_client(
        &mut self,
        ev: &EventRef<'_>,
        caps: Option<ClientCaps>,
        log_level: bool,
        out: &mut Vec<Finding>,
    ) {
        // mcpscope offers what the user may want to test: not a finding
        // about its own sessions.
        if self.era != Era::Stateless || self.cfg.own_client {
            return;
        }
        let used = [
            (log_level, Deprecated::Logging),
            (caps.is_some_and(|c| c.sampling), Deprecated::Sampling),
            (caps.is_some_and(|c| c.roots), Deprecated::Roots),
        ];
        for (used, f) in used {
            if !used || self.told.client & f as u8 != 0 {
                continue;
            }
            self.told.client |= f as u8;
            let message = format!(
                "the client uses {}, which the 2026-07-28 revision deprecates (SEP-2577); it still works, but plan to migrate",
                f.name()
            );
            self.emit(
                out,
                Rule::ClientDeprecatedFeature,
                vec![ev.seq],
                None,
                None,
                message,
            );
        }
    }
}

/// Why an elicitation's `requestedSchema` is outside what form mode
/// allows: an object schema whose properties are each a string, number,
/// integer or boolean schema, or an array of enumerated strings.
fn requested_schema_problem(params: Option<&Value>) -> Option<String> {
    let Some(schema) = params.and_then(|p| p.get("requestedSchema")) else {
        return Some("is missing".into());
    };
    let Some(obj) = schema.as_object() else {
        return Some("is not a JSON object".into());
    };
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        return Some("does not have type \"object\"".into());
    }
    let props = match obj.get("properties") {
        None => return None,
        Some(Value::Object(p)) => p,
        Some(_) => return Some("has properties that are not a JSON object".into()),
    };
    for (name, prop) in props {
        let name = crate::protocol::sanitize::one_line(name);
        let kind = prop.get("type").and_then(Value::as_str);
        let ok = match kind {
            Some("string" | "number" | "integer" | "boolean") => true,
            Some("array") => prop.get("items").is_some_and(Value::is_object),
            // An enum written as oneOf/anyOf of titled constants.
            None => prop
                .get("oneOf")
                .or_else(|| prop.get("anyOf"))
                .is_some_and(Value::is_array),
            _ => false,
        };
        if !ok {
            return Some(format!(
                "has property {name:?} that is not a primitive (string, number, integer, boolean) or an enum array"
            ));
        }
    }
    None
}
