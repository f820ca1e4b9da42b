//! Which pane: the one id the layout, focus, the key map's contexts, the
//! tab bar and the pane registry (`panes::Panes::get`) all use.

/// The panes, in focus order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pane {
    Progress,
    Timeline,
    Logs,
    Raw,
    Tools,
    Composer,
    Findings,
    /// HTTP exchanges; offered once the session has any.
    Network,
    /// The session on a time axis, one lane per call.
    Scope,
}

impl Pane {
    pub const ORDER: [Pane; 9] = [
        Pane::Progress,
        Pane::Timeline,
        Pane::Logs,
        Pane::Raw,
        Pane::Tools,
        Pane::Composer,
        Pane::Findings,
        Pane::Network,
        Pane::Scope,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Progress => "Progress",
            Pane::Timeline => "Timeline",
            Pane::Logs => "Logs",
            Pane::Raw => "Raw",
            Pane::Tools => "Tools",
            Pane::Composer => "Composer",
            Pane::Findings => "Findings",
            Pane::Network => "Network",
            Pane::Scope => "Scope",
        }
    }

    /// The digit that focuses it (matches the default key map).
    pub fn number(self) -> usize {
        Pane::ORDER.iter().position(|p| *p == self).unwrap_or(0) + 1
    }

    /// The next (or previous) pane in focus order, skipping panes not offered.
    pub fn step(self, forward: bool, offered: impl Fn(Pane) -> bool) -> Pane {
        let n = Pane::ORDER.len();
        let mut i = self.number() - 1;
        for _ in 0..n {
            i = if forward {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            };
            if offered(Pane::ORDER[i]) {
                return Pane::ORDER[i];
            }
        }
        self
    }
}
