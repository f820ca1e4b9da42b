//! An authorization server is as untrusted as the MCP server it speaks for,
//! and the token cache as private as the sessions directory. Through the
//! real binary against the loopback fixture of `auth_support`:
//! - every string the authorization server sends (a registered client id,
//!   the redirect's `error`, token and registration error bodies) reaches
//!   the terminal sanitised, `auth status` included.

mod auth_support;
mod common;

use auth_support::{
    Fault, HOSTILE, assert_no_raw_controls, assert_sanitised, mcpscope, server, url,
};
use serde_json::Value;
use std::path::Path;

/// `auth login`, the authorization redirects followed over HTTP.
fn login(data: &Path, u: &str) -> common::Output {
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
