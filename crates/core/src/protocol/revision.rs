//! Protocol revisions and the era they belong to. The era is a property of the
//! session: code asks the session's `Revision` what it supports instead of
//! comparing date strings.

use std::fmt;
use std::str::FromStr;

/// A dated MCP revision mcpscope can speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Revision {
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
    V2026_07_28,
}

/// How a session is established and how request-bound state travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// `initialize` handshake, session-wide `logging/setLevel` (2024-11-05 … 2025-11-25).
    Handshake,
    /// No handshake; every request carries its own `_meta` (2026-07-28 onwards).
    Stateless,
}

impl Revision {
    pub const ALL: [Revision; 5] = [
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];
    /// The default for the handshake era.
    pub const LATEST_HANDSHAKE: Revision = Revision::V2025_11_25;

    pub fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision a version string speaks at least: the newest known
    /// revision not newer than it. Revision names are dates that sort as
    /// text, so one mcpscope does not know (a newer peer's) compares with
    /// the known ones as its date would; `None` when it precedes them all.
    pub fn floor_of(s: &str) -> Option<Revision> {
        Revision::ALL.into_iter().rev().find(|r| r.as_str() <= s)
    }

    /// A dated revision (`YYYY-MM-DD`) later than every one mcpscope knows:
    /// a newer peer's, not a wrong one.
    pub fn is_newer_than_known(s: &str) -> bool {
        let b = s.as_bytes();
        let dated = b.len() == 10
            && b.iter().enumerate().all(|(i, c)| {
                if i == 4 || i == 7 {
                    *c == b'-'
                } else {
                    c.is_ascii_digit()
                }
            });
        dated && Revision::ALL.iter().all(|r| r.as_str() < s)
    }

    /// The revisions spoken with the `initialize` handshake, oldest first.
    pub fn handshake() -> impl Iterator<Item = Revision> {
        Revision::ALL
            .into_iter()
            .filter(|r| r.era() == Era::Handshake)
    }

    /// A version string that names a handshake-era revision.
    pub fn of_handshake(s: &str) -> Option<Revision> {
        s.parse::<Revision>()
            .ok()
            .filter(|r| r.era() == Era::Handshake)
    }

    pub fn era(self) -> Era {
        if self >= Revision::V2026_07_28 {
            Era::Stateless
        } else {
            Era::Handshake
        }
    }

    /// 2025-03-26 allowed JSON-RPC batches; later revisions removed them.
    pub fn allows_batches(self) -> bool {
        self == Revision::V2025_03_26
    }

    /// `message` in progress notifications appeared in 2025-03-26.
    pub fn progress_has_message(self) -> bool {
        self >= Revision::V2025_03_26
    }

    /// Elicitation (`elicitation/create`) appeared in 2025-06-18.
    pub fn has_elicitation(self) -> bool {
        self >= Revision::V2025_06_18
    }

    /// `logging/setLevel` exists only in the handshake era.
    pub fn has_set_level(self) -> bool {
        self.era() == Era::Handshake
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Revision {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Revision::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
                format!(
                    "unknown protocol revision {s:?} (known: {})",
                    known.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_eras() {
        for r in Revision::ALL {
            assert_eq!(r.as_str().parse::<Revision>().unwrap(), r);
        }
        assert_eq!(Revision::V2025_11_25.era(), Era::Handshake);
        assert_eq!(Revision::V2026_07_28.era(), Era::Stateless);
        assert!(!Revision::V2026_07_28.has_set_level());
        assert!(Revision::V2025_03_26.allows_batches());
        assert!(!Revision::V2025_06_18.allows_batches());
        assert!(!Revision::V2024_11_05.progress_has_message());
        assert!("2025-13-01".parse::<Revision>().is_err());
    }

    #[test]
    fn unknown_versions_compare_as_their_date() {
        assert_eq!(
            Revision::floor_of("2025-06-18"),
            Some(Revision::V2025_06_18)
        );
        assert_eq!(
            Revision::floor_of("2025-09-01"),
            Some(Revision::V2025_06_18)
        );
        assert_eq!(
            Revision::floor_of("2027-01-01"),
            Some(Revision::V2026_07_28)
        );
        assert_eq!(Revision::floor_of("2024-01-01"), None);
        assert_eq!(Revision::floor_of(""), None);
        // Exactly what comparing the text would say, for any text.
        for s in [
            "",
            "2024-11-04",
            "2025-03-26",
            "2025-12-31",
            "abc",
            "2026-07-28x",
        ] {
            for r in Revision::ALL {
                assert_eq!(Revision::floor_of(s) >= Some(r), s >= r.as_str(), "{s} {r}");
            }
        }
    }

    #[test]
    fn the_handshake_revisions() {
        let all: Vec<Revision> = Revision::handshake().collect();
        assert_eq!(all.len(), 4);
        assert_eq!(all.last(), Some(&Revision::LATEST_HANDSHAKE));
        assert_eq!(
            Revision::of_handshake("2025-03-26"),
            Some(Revision::V2025_03_26)
        );
        assert_eq!(Revision::of_handshake("2026-07-28"), None);
        assert_eq!(Revision::of_handshake("2025-09-01"), None);
    }
}
