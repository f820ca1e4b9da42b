//! An authorization server is as untrusted as the MCP server it speaks for,
//! and the token cache as private as the sessions directory. Through the
//! real binary against the loopback fixture of `support::auth`:
//! - every string the authorization server sends (a registered client id,
//!   the redirect's `error`, token and registration error bodies) reaches
//!   the terminal sanitised, `auth status` included;
//! - a token response that does not parse is described (field, problem)
//!   and never echoed, on screen or in the trace; `expires_in` may be a
//!   string of digits;
//! - authorization endpoints over plain http are refused off loopback;
//! - a data directory other users can write to is neither read nor written;
//! - `auth login` says "authorized" only once the server took the token.

use crate::support;

use crate::support::auth::{
    Fault, HOSTILE, REMOTE_HTTP, assert_no_raw_controls, assert_sanitised, mcpscope, refused,
    server, url,
};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::atomic::Ordering;

/// `auth login`, the authorization redirects followed over HTTP.
fn login(data: &Path, u: &str) -> support::Run {
    mcpscope(
        data,
        &[
            "auth",
            "login",
            "--url",
            u,
            "--auth-agent",
            "fetch",
            "--auth-timeout",
            "5",
        ],
    )
}

#[test]
fn refusals_from_the_authorization_server_reach_the_terminal_sanitised() {
    for fault in [
        Fault::HostileCallbackError,
        Fault::HostileTokenError,
        Fault::HostileRegistrationError,
    ] {
        let (port, _) = server(fault);
        let data = tempfile::tempdir().unwrap();
        let u = url(port);
        let out = login(data.path(), &u);
        assert_eq!(out.code, 3, "{fault:?}: {}", out.stderr);
        assert_sanitised(&format!("{fault:?}: auth login"), &out.stderr);
        assert_no_raw_controls(&format!("{fault:?}: auth login stdout"), &out.stdout);
        let out = mcpscope(
            data.path(),
            &[
                "call",
                "--url",
                &u,
                "--tool",
                "hello",
                "--auth-agent",
                "fetch",
            ],
        );
        assert_eq!(out.code, 3, "{fault:?}: {}", out.stderr);
        assert_sanitised(&format!("{fault:?}: call"), &out.stderr);
    }
}

#[test]
fn a_hostile_client_id_is_shown_sanitised_and_kept_exact() {
    let (port, _) = server(Fault::HostileClientId);
    let data = tempfile::tempdir().unwrap();
    let u = url(port);
    let out = login(data.path(), &u);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_sanitised("auth login stdout", &out.stdout);
    assert_sanitised("auth login stderr", &out.stderr);

    let status = mcpscope(data.path(), &["auth", "status", "--url", &u]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert_sanitised("auth status", &status.stdout);

    // JSON keeps the value exact: escaped, not replaced.
    let status = mcpscope(data.path(), &["auth", "status", "--url", &u, "--json"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert_no_raw_controls("auth status --json", &status.stdout);
    let line: Value = serde_json::from_str(status.stdout.trim()).unwrap();
    assert_eq!(line["client_id"], HOSTILE);
}

/// What a token response that does not parse must be reported as: the
/// field and the problem, and no value of it.
const UNPARSABLE: [(&str, &str, &str, &str); 5] = [
    (
        "application/json",
        r#"{"access_token":"SECRET-access","token_type":"Bearer","expires_in":true,"refresh_token":"SECRET-refresh"}"#,
        "expires_in",
        "is a boolean, not a number of seconds",
    ),
    (
        "application/json",
        r#"{"access_token":"SECRET-access","token_type":"Bearer","expires_in":"SECRET-soon"}"#,
        "expires_in",
        "is a string that is not a number of seconds",
    ),
    (
        "application/json",
        r#"{"access_token":31415926535,"token_type":"Bearer"}"#,
        "access_token",
        "is a number, not a string",
    ),
    (
        "application/json",
        r#"{"token_type":"Bearer","refresh_token":"SECRET-refresh"}"#,
        "access_token",
        "has no access_token",
    ),
    (
        "application/x-www-form-urlencoded",
        "access_token=SECRET-access&token_type=bearer",
        "application/x-www-form-urlencoded",
        "not JSON",
    ),
];

#[test]
fn a_token_response_that_does_not_parse_is_described_never_echoed() {
    for (ctype, body, field, problem) in UNPARSABLE {
        let (port, _) = server(Fault::TokenAnswer(ctype, body));
        let data = tempfile::tempdir().unwrap();
        let trace = data.path().join("trace.jsonl");
        let out = mcpscope(
            data.path(),
            &[
                "call",
                "--url",
                &url(port),
                "--tool",
                "hello",
                "--auth-agent",
                "fetch",
                "--record",
                trace.to_str().unwrap(),
            ],
        );
        assert_eq!(out.code, 3, "{body}: {}", out.stderr);
        let line = out
            .stderr
            .lines()
            .find(|l| l.starts_with("[error]"))
            .unwrap_or_else(|| panic!("{body}: no error in\n{}", out.stderr));
        assert!(
            line.contains(field) && line.contains(problem),
            "{body}: {field} / {problem} not in {line}"
        );
        let recorded = std::fs::read_to_string(&trace).unwrap();
        let failed = recorded
            .lines()
            .find(|l| l.contains(r#""state":"failed""#))
            .unwrap_or_else(|| panic!("{body}: no failed state in the trace\n{recorded}"));
        assert!(failed.contains(problem), "{body}: {failed}");
        for text in [&out.stdout, &out.stderr, &recorded] {
            assert!(
                !text.contains("SECRET") && !text.contains("31415926535"),
                "{body}: a value of the response was shown:\n{text}"
            );
        }
        assert!(!data.path().join("auth.json").exists(), "{body}");
    }
}

#[test]
fn expires_in_as_a_string_of_digits_is_accepted() {
    let (port, seen) = server(Fault::TokenAnswer(
        "application/json",
        r#"{"access_token":"string-expiry","token_type":"Bearer","expires_in":"3600"}"#,
    ));
    let data = tempfile::tempdir().unwrap();
    let before = now();
    let out = mcpscope(
        data.path(),
        &[
            "tools",
            "--url",
            &url(port),
            "--auth-agent",
            "fetch",
            "--json",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        seen.bearers
            .lock()
            .unwrap()
            .iter()
            .any(|b| b == "Bearer string-expiry")
    );
    let cache: Value =
        serde_json::from_str(&std::fs::read_to_string(data.path().join("auth.json")).unwrap())
            .unwrap();
    let at = cache["entries"][0]["tokens"]["expires_at"]
        .as_u64()
        .expect("an expiry was kept");
    assert!(
        (before + 3600..=now() + 3600).contains(&at),
        "expires_at {at}"
    );
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[test]
fn plain_http_authorization_endpoints_off_loopback_are_refused() {
    for field in [
        "issuer",
        "authorization_endpoint",
        "token_endpoint",
        "registration_endpoint",
    ] {
        let line = refused(Fault::RemoteHttp(field), "requires https");
        assert!(line.contains(REMOTE_HTTP), "{field}: {line}");
        if field != "issuer" {
            assert!(line.contains(field), "{field}: {line}");
        }
    }
}

/// A cache file for the fixture at `port` holding `token`, as another user
/// able to write to the directory could have left it.
fn planted_cache(port: u16, token: &str) -> String {
    let b = format!("http://127.0.0.1:{port}");
    json!({"format": 1, "entries": [{
        "server": url(port), "issuer": b, "resource": url(port),
        "meta": {"issuer": b, "authorization_endpoint": format!("{b}/authorize"),
                 "token_endpoint": format!("{b}/token")},
        "client": {"client_id": "planted", "auth_method": "none", "how": "dynamic"},
        "tokens": {"access_token": token},
        "saved": 0,
    }]})
    .to_string()
}

#[test]
fn a_data_directory_others_can_write_to_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    for mode in [0o770, 0o703] {
        let (port, seen) = server(Fault::None);
        *seen.valid.lock().unwrap() = Some("planted-token".into());
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        std::fs::create_dir(&dir).unwrap();
        let file = dir.join("auth.json");
        let planted = planted_cache(port, "planted-token");
        std::fs::write(&file, &planted).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).unwrap();
        let u = url(port);

        let status = mcpscope(&dir, &["auth", "status"]);
        assert_eq!(status.code, 2, "{mode:o}: {}", status.stdout);
        assert!(
            status.stderr.contains(&dir.display().to_string())
                && status.stderr.contains("chmod 700"),
            "{mode:o}: {}",
            status.stderr
        );

        let out = login(&dir, &u);
        assert_eq!(out.code, 2, "{mode:o}: {}", out.stderr);
        assert!(out.stderr.contains("chmod 700"), "{mode:o}: {}", out.stderr);
        assert_eq!(seen.authorizations.load(Ordering::SeqCst), 0, "{mode:o}");

        // The planted token is not used, and nothing is written there.
        let out = mcpscope(
            &dir,
            &[
                "call",
                "--url",
                &u,
                "--tool",
                "hello",
                "--auth-agent",
                "fetch",
            ],
        );
        assert!(
            out.stderr.contains("[auth] authorized"),
            "{mode:o}: {}",
            out.stderr
        );
        assert!(
            !seen
                .bearers
                .lock()
                .unwrap()
                .iter()
                .any(|b| b.contains("planted")),
            "{mode:o}: the planted token was sent"
        );
        assert!(
            out.stderr.contains("[auth] cache-error") && out.stderr.contains("chmod 700"),
            "{mode:o}: {}",
            out.stderr
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), planted);
    }
}

#[test]
fn auth_login_checks_the_new_token_with_the_server() {
    let (port, seen) = server(Fault::None);
    let data = tempfile::tempdir().unwrap();
    let out = login(data.path(), &url(port));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("authorized "), "{}", out.stdout);
    assert_eq!(
        seen.bearers.lock().unwrap().as_slice(),
        ["Bearer access-0"],
        "one request, with the new token"
    );
}

#[test]
fn auth_login_fails_when_the_server_refuses_the_new_token() {
    let (port, seen) = server(Fault::RefusesTokens);
    let data = tempfile::tempdir().unwrap();
    let u = url(port);
    let out = login(data.path(), &u);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(!out.stdout.contains("authorized"), "{}", out.stdout);
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with("[error]"))
        .unwrap_or_else(|| panic!("no error in\n{}", out.stderr));
    assert!(
        line.contains("refused the new token") && line.contains("HTTP 401"),
        "{line}"
    );
    assert_eq!(seen.bearers.lock().unwrap().as_slice(), ["Bearer access-0"]);
    // A token the server refuses is not kept.
    let status = mcpscope(data.path(), &["auth", "status", "--url", &u]);
    assert_eq!(status.code, 1, "{}", status.stdout);
}
