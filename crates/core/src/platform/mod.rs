//! What differs between Unix and Windows, one small module per concern,
//! each choosing its implementation with `cfg`. The rest of the crate calls
//! these and names no OS API itself.
//!
//! - [`signals`]: catching the stopping signals (Unix) or console control
//!   events (Windows: Ctrl-C, Ctrl-Break, the console closing), and ending
//!   the process the way a signal would;
//! - [`process`]: a child in a process group of its own, stopping its whole
//!   tree, passing an interrupt on, how it ended, whether a pid is running
//!   and since when;
//! - [`files`]: private files and directories (modes 0600/0700 and the
//!   owner on Unix; on Windows the user's profile directories, whose access
//!   lists already keep other users out) and special file kinds;
//! - [`started`]: the servers started and not reaped yet, stopped by the
//!   panic hook of a build that aborts on panic;
//! - [`stdio`]: taking the host's stdin and stdout for the stdio proxy.

pub mod files;
pub mod process;
pub mod signals;
pub mod started;
pub mod stdio;
