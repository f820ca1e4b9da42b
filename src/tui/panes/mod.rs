//! The panes, one folder each: `mod.rs` holds the pane's state and its
//! `PaneSpec` (title, keys, how it starts), `update.rs` its input (keys,
//! clicks, the sync step's upkeep), `view.rs` its drawing (only the rows
//! shown, no I/O). A pane changes only its own state; what it wants
//! elsewhere it returns as `Command`s, which the App routes.
//!
//! The registry here is generated from the pane table (`pane::each_pane!`):
//! the `Panes` struct, how each starts, which pane an input or action goes
//! to, and each pane's title, settings name, keys and hints.

pub mod composer;
pub mod findings;
pub mod logs;
pub mod network;
pub mod progress;
pub mod raw;
pub mod scope;
pub mod timeline;
pub mod tools;

use super::action::Action;
use super::command::Commands;
use super::overlays::status::InputTarget;
use super::pane::{Pane, each_pane};
use super::theme::Theme;
use crate::trace::Store;
use ratatui::layout::Rect;
use scope::WallStart;

/// What a pane's input handling may read besides its own state.
#[derive(Debug, Clone, Copy)]
pub struct Cx {
    /// Rows the pane's list shows (a page key moves this many).
    pub rows: usize,
    /// Where the pane is laid out (None when it is not shown).
    pub area: Option<Rect>,
    pub live: bool,
    pub now_us: u64,
}

/// A pane's input, as the App sends it to whichever pane is focused or
/// under the pointer. Pane-specific actions go to `PaneSpec::act`.
pub trait PaneInput {
    /// Move the selection (or the view) by `delta` rows.
    fn scroll(&mut self, delta: isize, cx: &Cx) -> Commands;

    /// A click on the pane; `item` is the list item drawn on that row.
    fn click(&mut self, _item: Option<usize>, _cx: &Cx) -> Commands {
        Vec::new()
    }

    /// The text field the Filter key opens here.
    fn filter(&self) -> Option<InputTarget> {
        None
    }

    /// The filter's text now (the field starts from it).
    fn filter_text(&self) -> String {
        String::new()
    }

    fn set_filter(&mut self, _text: &str) {}

    /// The Follow key; false where the pane has no follow mode (the key is
    /// global, and then resumes the timeline's, which follows by default).
    fn follow(&mut self) -> bool {
        false
    }
}

/// What the App's options say to the panes as they start.
pub struct Start<'a> {
    pub theme: &'a Theme,
    /// False for a recorded trace: nothing can be sent.
    pub live: bool,
    pub stale_after_us: u64,
    pub idle_timeout_secs: Option<u64>,
    pub max_timeout_secs: Option<u64>,
    pub wall_start: Option<WallStart>,
}

/// The room a pane has as laid out (zero where it is not shown).
#[derive(Debug, Clone, Copy, Default)]
pub struct Fit {
    /// Rows its list shows (below any column header, above any detail).
    pub rows: usize,
    /// Rows inside its border.
    pub inner_rows: usize,
}

/// What a sync-step hook did: `done` is false while it has more of the
/// store to take in; `changed` when the next frame differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upkeep {
    pub done: bool,
    pub changed: bool,
}

impl Upkeep {
    pub const DONE: Upkeep = Upkeep {
        done: true,
        changed: false,
    };

    fn and(self, o: Upkeep) -> Upkeep {
        Upkeep {
            done: self.done && o.done,
            changed: self.changed || o.changed,
        }
    }
}

/// Default key bindings: each action's keys, in the pane's own context.
pub type Keys = &'static [(&'static [&'static str], Action)];

pub type Actions = &'static [Action];

/// A pane as the registry knows it: what makes it a pane beyond its
/// input and its view. Implemented in each pane's `mod.rs`.
pub trait PaneSpec: PaneInput + Sized {
    /// Its name in its border and the tab bar.
    const TITLE: &'static str;
    /// Its table in the settings file (`[keys.NAME]`).
    const NAME: &'static str;
    /// The action its number's key is bound to.
    const FOCUS: Option<Action> = None;
    /// Its default key bindings (in its own context).
    const KEYS: Keys = &[];
    /// The status line's hints while it is focused.
    const HINTS: Actions = &[];
    /// The actions `act` handles, wherever their keys are bound.
    const ACTIONS: Actions = &[];

    fn start(s: &Start) -> Self;

    /// One of its `ACTIONS`; `cx` is this pane's, as laid out.
    fn act(&mut self, _a: Action, _cx: &Cx) -> Commands {
        Vec::new()
    }

    /// Sync step: take in what the store gained, at most `budget` events.
    fn pull(&mut self, _store: &Store, _budget: u64) -> Upkeep {
        Upkeep::DONE
    }

    /// Sync step: apply follow modes and clamp cursors to what it holds
    /// and the room it has.
    fn refit(&mut self, _store: &Store, _fit: Fit) -> Upkeep {
        Upkeep::DONE
    }
}

macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident $field:ident $state:ident,)*) => {
        pub struct Panes {
            $(pub $field: $field::$state,)*
        }

        impl Panes {
            pub fn start(s: &Start) -> Panes {
                Panes {
                    $($field: PaneSpec::start(s),)*
                }
            }

            /// Pane `p`'s input.
            pub fn input(&mut self, p: Pane) -> &mut dyn PaneInput {
                match p {
                    $(Pane::$variant => &mut self.$field,)*
                }
            }

            /// Action `a` to pane `p`, its owner (`Pane::owner`).
            pub fn act(&mut self, p: Pane, a: Action, cx: &Cx) -> Commands {
                match p {
                    $(Pane::$variant => PaneSpec::act(&mut self.$field, a, cx),)*
                }
            }

            /// Every pane's `pull`, in focus order.
            pub fn pull(&mut self, store: &Store, budget: u64) -> Upkeep {
                Upkeep::DONE$(.and(PaneSpec::pull(&mut self.$field, store, budget)))*
            }

            /// Every pane's `refit`, in focus order, to the room `fit` says.
            pub fn refit(&mut self, store: &Store, fit: impl Fn(Pane) -> Fit) -> Upkeep {
                Upkeep::DONE$(.and(PaneSpec::refit(&mut self.$field, store, fit(Pane::$variant))))*
            }
        }

        impl Pane {
            pub fn title(self) -> &'static str {
                match self {
                    $(Pane::$variant => <$field::$state as PaneSpec>::TITLE,)*
                }
            }

            /// Its `[keys.NAME]` table in the settings file.
            pub fn name(self) -> &'static str {
                match self {
                    $(Pane::$variant => <$field::$state as PaneSpec>::NAME,)*
                }
            }

            /// The pane of a name (`progress`, `scope`…) or of its number
            /// (`1`…), as `--focus` takes it.
            pub fn named(name: &str) -> Option<Pane> {
                let name = name.trim().to_ascii_lowercase();
                Pane::ORDER
                    .iter()
                    .copied()
                    .find(|p| p.name() == name || p.number().to_string() == name)
            }

            pub fn keys(self) -> Keys {
                match self {
                    $(Pane::$variant => <$field::$state as PaneSpec>::KEYS,)*
                }
            }

            pub fn hints(self) -> Actions {
                match self {
                    $(Pane::$variant => <$field::$state as PaneSpec>::HINTS,)*
                }
            }

            pub fn focus(self) -> Option<Action> {
                match self {
                    $(Pane::$variant => <$field::$state as PaneSpec>::FOCUS,)*
                }
            }

            /// The actions it handles (`PaneSpec::ACTIONS`).
            pub fn actions(self) -> Actions {
                match self {
                    $(Pane::$variant => <$field::$state as PaneSpec>::ACTIONS,)*
                }
            }
        }
    };
}
each_pane!(registry);

impl Pane {
    /// The pane action `a` focuses.
    pub fn focused_by(a: Action) -> Option<Pane> {
        Pane::ORDER.into_iter().find(|p| p.focus() == Some(a))
    }

    /// The pane that handles action `a`.
    pub fn owner(a: Action) -> Option<Pane> {
        Pane::ORDER.into_iter().find(|p| p.actions().contains(&a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_is_handled_by_one_pane_at_most() {
        for p in Pane::ORDER {
            for a in p.actions() {
                assert_eq!(Pane::owner(*a), Some(p), "{a:?}");
            }
        }
    }
}
