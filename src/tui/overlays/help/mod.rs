//! The help overlay: every binding of the key map, by context.

pub mod update;
pub mod view;
