//! The interactive UI. The only module that touches the terminal.

use crate::cli::TuiArgs;

/// Run the TUI; returns the process exit code.
pub fn run(args: TuiArgs, demo: bool) -> i32 {
    let _ = (args, demo);
    eprintln!("[error] the TUI is not available in this build yet; use `mcpscope call`");
    2
}
