//! A finding: which rule, which frames prove it, and what a server author
//! should read. Serialised as the `check --format json` finding object.

use super::rules::{Party, Rule, Severity};
use crate::protocol::IdKey;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub rule: Rule,
    pub severity: Severity,
    /// The events (trace seq numbers) that prove the finding, oldest first.
    #[serde(rename = "seq")]
    pub seqs: Vec<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<IdKey>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<IdKey>,
    /// One line, for the author of the party judged.
    pub message: String,
    /// Which side the rule judges: `server`, or `client` (the host).
    #[serde(default)]
    pub party: Party,
    /// The host session it is about, when a proxy saw several (its
    /// `Mcp-Session-Id`): each session is judged on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

impl fmt::Display for Finding {
    /// `progress-not-increasing (error) #12 #14: message` — the `[finding]` line body.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.rule, self.severity)?;
        for s in &self.seqs {
            write!(f, " #{s}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(s) = &self.session {
            write!(f, " [session {}]", short_session(s))?;
        }
        Ok(())
    }
}

/// A session id as a line shows it: sanitised, and cut (ids are long and
/// the first characters tell sessions apart).
pub fn short_session(id: &str) -> String {
    let clean = crate::protocol::sanitize::one_line(id);
    match clean.char_indices().nth(12) {
        Some((at, _)) => format!("{}…", &clean[..at]),
        None => clean.into_owned(),
    }
}

/// Findings counted by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeverityCounts {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
}

impl SeverityCounts {
    pub fn add(&mut self, s: Severity) {
        match s {
            Severity::Error => self.error += 1,
            Severity::Warning => self.warning += 1,
            Severity::Info => self.info += 1,
        }
    }

    pub fn of<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> SeverityCounts {
        let mut c = SeverityCounts::default();
        for f in findings {
            c.add(f.severity);
        }
        c
    }

    pub fn total(&self) -> usize {
        self.error + self.warning + self.info
    }

    /// The worst severity counted, if any.
    pub fn worst(&self) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| match s {
            Severity::Error => self.error > 0,
            Severity::Warning => self.warning > 0,
            Severity::Info => self.info > 0,
        })
    }
}

/// Findings counted by severity, for each party.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PartyCounts {
    pub server: SeverityCounts,
    pub client: SeverityCounts,
}

impl PartyCounts {
    pub fn add(&mut self, f: &Finding) {
        match f.party {
            Party::Server => self.server.add(f.severity),
            Party::Client => self.client.add(f.severity),
        }
    }
}
