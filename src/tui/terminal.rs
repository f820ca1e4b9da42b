//! The terminal guard: raw mode, alternate screen, mouse and bracketed
//! paste on entry; all of it undone on drop, on panic (the hook restores the
//! terminal before the panic message is printed) and by the runtime on
//! SIGINT, SIGTERM and SIGHUP (which end the loop normally, so the drop
//! runs). Nothing here panics when the terminal is gone: every write's
//! error is dropped.

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{self, Stdout};
use std::mem::ManuallyDrop;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Whether the terminal is currently in UI mode (so restoring twice is harmless).
static ACTIVE: AtomicBool = AtomicBool::new(false);

pub struct TerminalGuard {
    /// Never dropped: ratatui's drop shows a hidden cursor and, if that write
    /// fails (the terminal was closed), reports it with `eprintln!`, which
    /// panics on a dead stderr. `restore` shows the cursor instead.
    pub terminal: ManuallyDrop<Term>,
}

impl TerminalGuard {
    pub fn enter() -> io::Result<TerminalGuard> {
        install_panic_hook();
        ACTIVE.store(true, Ordering::SeqCst);
        let setup = || -> io::Result<Term> {
            enable_raw_mode()?;
            execute!(
                io::stdout(),
                EnterAlternateScreen,
                EnableMouseCapture,
                EnableBracketedPaste,
                cursor::Hide
            )?;
            Terminal::new(CrosstermBackend::new(io::stdout()))
        };
        match setup() {
            Ok(terminal) => Ok(TerminalGuard {
                terminal: ManuallyDrop::new(terminal),
            }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Put the terminal back as we found it. Safe to call more than once.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // Restore first: a panic message printed in raw mode on the
            // alternate screen would be lost, and the shell left unusable.
            restore();
            previous(info);
        }));
    });
}
