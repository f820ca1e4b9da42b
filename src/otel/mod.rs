//! Receiving OpenTelemetry from the server under inspection: a local
//! OTLP/HTTP receiver ([`receiver`]) whose spans, log records and metric
//! counts become trace events ([`decode`]), the environment that points a
//! spawned server's exporter at it, and the headless commands' grace for
//! spans that arrive after their call's response ([`grace`]); and sending
//! sessions to an OpenTelemetry backend ([`export`]).

pub mod decode;
mod error;
pub mod export;
pub mod grace;
pub mod lines;
pub mod receiver;

pub use error::OtelError;
pub use receiver::{Receiver, ReceiverAt};

pub const ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
pub const PROTOCOL_VAR: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
pub const SERVICE_VAR: &str = "OTEL_SERVICE_NAME";

/// Point a spawned server's OTLP exporter at the receiver: endpoint,
/// protocol and service name, each unless the user set it already (in the
/// command's environment or mcpscope's own, which the server inherits).
/// A `service.name` in `OTEL_RESOURCE_ATTRIBUTES` counts as a service name.
pub fn point_at(env: &mut Vec<(String, String)>, endpoint: &str, service: &str) {
    point_at_with(env, endpoint, service, |k| std::env::var_os(k).is_some());
}

fn point_at_with(
    env: &mut Vec<(String, String)>,
    endpoint: &str,
    service: &str,
    inherited: impl Fn(&str) -> bool,
) {
    let set = |env: &[(String, String)], k: &str| inherited(k) || env.iter().any(|(n, _)| n == k);
    let resource_names_service = |env: &[(String, String)]| {
        let own = env
            .iter()
            .find(|(n, _)| n == "OTEL_RESOURCE_ATTRIBUTES")
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var("OTEL_RESOURCE_ATTRIBUTES").ok());
        own.is_some_and(|v| {
            v.split(',')
                .any(|kv| kv.trim().starts_with("service.name="))
        })
    };
    for (k, v) in [
        (ENDPOINT_VAR, endpoint),
        (PROTOCOL_VAR, "http/protobuf"),
        (SERVICE_VAR, service),
    ] {
        if set(env, k) || (k == SERVICE_VAR && resource_names_service(env)) {
            continue;
        }
        env.push((k.to_string(), v.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(env: &[(&str, &str)]) -> Vec<(String, String)> {
        env.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_users_own_settings_win() {
        let mut c = cmd(&[(ENDPOINT_VAR, "http://collector:4318")]);
        point_at_with(&mut c, "http://127.0.0.1:9", "srv", |k| k == SERVICE_VAR);
        assert_eq!(
            c,
            vec![
                (ENDPOINT_VAR.into(), "http://collector:4318".into()),
                (PROTOCOL_VAR.into(), "http/protobuf".into()),
            ]
        );
        let mut c = cmd(&[]);
        point_at_with(&mut c, "http://127.0.0.1:9", "srv", |_| false);
        assert_eq!(c.len(), 3);
        assert!(c.contains(&(SERVICE_VAR.into(), "srv".into())));
    }
}
