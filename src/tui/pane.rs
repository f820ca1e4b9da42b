//! Which pane: the one id the layout, focus, the key map's contexts and the
//! tab bar use, and the pane table every per-pane dispatch is generated
//! from (`each_pane!`). What each pane is (its title, keys, how it starts,
//! takes in the store and handles its actions) lives in its folder under
//! `panes/`, as its `PaneSpec`.

/// The pane table, one row per pane in focus order (its place is its
/// number): the variant, its field in `Panes` (also its folder under
/// `panes/`) and its state type. `each_pane!(m)` hands the rows to macro
/// `m`, which writes one dispatch from them: the `Pane` enum here, the
/// `Panes` struct and its registry in `panes/mod.rs`, the drawing registry
/// in `screen.rs`. Adding a pane is its folder, `pub mod` in
/// `panes/mod.rs`, and a row here.
macro_rules! each_pane {
    ($then:ident) => {
        $then! {
            Progress progress ProgressState,
            Timeline timeline TimelineState,
            Logs logs LogsState,
            Raw raw RawState,
            Tools tools ToolsState,
            Composer composer Composer,
            Findings findings FindingsState,
            /// HTTP exchanges; offered once the session has any.
            Network network NetworkState,
            /// The session on a time axis, one lane per call.
            Scope scope ScopeState,
        }
    };
}
pub(crate) use each_pane;

macro_rules! pane_enum {
    ($($(#[$doc:meta])* $variant:ident $field:ident $state:ident,)*) => {
        /// The panes, in focus order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Pane {
            $($(#[$doc])* $variant,)*
        }

        impl Pane {
            pub const ORDER: [Pane; [$(Pane::$variant),*].len()] = [$(Pane::$variant),*];
        }
    };
}
each_pane!(pane_enum);

impl Pane {
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

/// How the panes are arranged: the user's choice (`layout` in
/// settings.toml; `Z` cycles it for the session).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrangement {
    /// Every pane at 150×40 and over; between 120×30 and that, the
    /// focused pane grows so each pane shown stays readable; below
    /// 120×30, one pane under a tab bar.
    #[default]
    Auto,
    /// Every pane at 120×30 and over, in fixed proportions.
    Full,
    /// One pane under a tab bar at every size.
    Tabs,
}

impl Arrangement {
    pub fn next(self) -> Arrangement {
        match self {
            Arrangement::Auto => Arrangement::Full,
            Arrangement::Full => Arrangement::Tabs,
            Arrangement::Tabs => Arrangement::Auto,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Arrangement::Auto => "auto",
            Arrangement::Full => "full",
            Arrangement::Tabs => "tabs",
        }
    }
}
