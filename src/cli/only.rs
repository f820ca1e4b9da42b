//! `--only FILTER`: which events a command prints, in the filter language
//! (`crate::filter`, docs/filters.md). It selects what is shown, never
//! what is judged.

use crate::filter::{Filter, Matcher};

/// The argument, for the commands that print events.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct OnlyArgs {
    /// Print only the events FILTER selects (docs/filters.md), e.g.
    /// `--only 'tool == slow_task && progress'`; every event is still read.
    #[arg(long, value_name = "FILTER")]
    pub only: Option<String>,
}

impl OnlyArgs {
    /// The matcher, or the parse error pointed at its column (exit 2).
    pub fn matcher(&self) -> Result<Option<Matcher>, i32> {
        matcher(self.only.as_deref())
    }
}

/// The matcher of an `--only` a command declares with help of its own
/// (what it selects differs: events printed, differences listed, events
/// exported), or the parse error pointed at its column (exit 2).
pub fn matcher(src: Option<&str>) -> Result<Option<Matcher>, i32> {
    let Some(src) = src else {
        return Ok(None);
    };
    match Filter::parse(src) {
        Ok(f) => Ok(Some(Matcher::new(f))),
        Err(e) => {
            eprintln!("[error] --only: {e}");
            for line in e.pointed(src).lines() {
                eprintln!("[error]   {line}");
            }
            Err(2)
        }
    }
}

/// Whether to print `ev`: every event without a filter. Each event must
/// come here in order (the filter follows the calls).
pub fn keep(m: &mut Option<Matcher>, ev: &crate::trace::EventRef<'_>) -> bool {
    m.as_mut().is_none_or(|m| m.test(ev))
}
