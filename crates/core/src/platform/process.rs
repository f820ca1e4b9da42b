//! Child processes and pids: a server runs in a process group of its own
//! (a terminal's Ctrl-C reaches mcpscope, which cancels properly, instead
//! of killing the server mid-call), its whole tree is stopped at the end
//! (it may have spawned helpers: npx → node), and a pid in a sessions
//! entry is checked for being the same running process.
//!
//! Unix: `setpgid`, `kill(-pgid, SIGTERM)` then SIGKILL. Windows:
//! `CREATE_NEW_PROCESS_GROUP` and a job object the child is put in at
//! start (closing it, even when mcpscope itself is killed, ends the tree);
//! a graceful stop is Ctrl-Break to the server's group, the hard one ends
//! the job.

use std::process::{Child, Command, ExitStatus};

#[cfg(unix)]
pub use unix::*;
#[cfg(windows)]
pub use windows::*;

/// Signal numbers a [`Tree`] is sent, as [`crate::signals`] names them.
pub use crate::signals::KILL;

#[cfg(unix)]
mod unix {
    use super::*;
    use std::os::unix::process::{CommandExt, ExitStatusExt};

    /// A command running `program` (looked up on `PATH` by the system).
    pub fn command(program: &str) -> Command {
        Command::new(program)
    }

    /// Start the child in a process group of its own.
    pub fn own_group(cmd: &mut Command) -> &mut Command {
        cmd.process_group(0)
    }

    /// How a process ended: its exit code, or the signal that killed it.
    pub fn exit_parts(st: &ExitStatus) -> (Option<i32>, Option<i32>) {
        (st.code(), st.signal())
    }

    /// A started child and everything it starts (its process group).
    pub struct Tree {
        pid: u32,
    }

    impl Tree {
        /// The tree of `child`, started with [`own_group`].
        pub fn of(child: &Child) -> Tree {
            // Until reaped: a panic in an aborting build still stops it.
            crate::platform::started::add(child.id());
            Tree { pid: child.id() }
        }

        /// Send `sig` to the whole group. The caller makes sure the child
        /// is not reaped yet (its group id could be reused after).
        pub fn signal_group(&self, sig: i32) {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe {
                libc::kill(-(self.pid as i32), sig);
            }
        }

        /// Send `sig` to the child alone (it passes it on as it likes).
        pub fn signal_child(&self, sig: i32) {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe {
                libc::kill(self.pid as i32, sig);
            }
        }
    }

    /// Is process `pid` running? (A zombie counts as gone.)
    pub fn alive(pid: u32) -> bool {
        let Ok(p) = i32::try_from(pid) else {
            return false;
        };
        // SAFETY: kill(2) with signal 0 only checks.
        let r = unsafe { libc::kill(p, 0) };
        if r != 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EPERM) {
            return false;
        }
        match state(pid) {
            Some(zombie) => !zombie,
            None => r == 0,
        }
    }

    /// Whether `pid` is a zombie, where the system says.
    #[cfg(target_os = "linux")]
    fn state(pid: u32) -> Option<bool> {
        let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // State is the field after the parenthesised command name.
        Some(
            s.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        )
    }

    #[cfg(target_os = "macos")]
    fn state(pid: u32) -> Option<bool> {
        Some(bsd_info(pid)?.pbi_status == libc::SZOMB)
    }

    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    fn state(_pid: u32) -> Option<bool> {
        None
    }

    /// Process `pid`'s start time, if readable: clock ticks since boot
    /// (field 22 of `/proc/PID/stat`) on Linux, microseconds since the
    /// epoch on macOS. Only compared with itself, on the same machine.
    #[cfg(target_os = "linux")]
    pub fn start_time(pid: u32) -> Option<u64> {
        let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // Fields after the parenthesised command name start at field 3 (state).
        let (_, rest) = s.rsplit_once(')')?;
        rest.split_whitespace().nth(22 - 3)?.parse().ok()
    }

    #[cfg(target_os = "macos")]
    pub fn start_time(pid: u32) -> Option<u64> {
        let i = bsd_info(pid)?;
        Some(i.pbi_start_tvsec * 1_000_000 + i.pbi_start_tvusec)
    }

    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    pub fn start_time(_pid: u32) -> Option<u64> {
        None
    }

    #[cfg(target_os = "macos")]
    fn bsd_info(pid: u32) -> Option<libc::proc_bsdinfo> {
        let pid = i32::try_from(pid).ok()?;
        // SAFETY: a zeroed proc_bsdinfo is a valid out-parameter (plain
        // integers and arrays), and its size is passed with it.
        let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
        // SAFETY: `info` is a valid out-parameter of `size` bytes.
        let n = unsafe {
            libc::proc_pidinfo(
                pid,
                libc::PROC_PIDTBSDINFO,
                0,
                (&mut info as *mut libc::proc_bsdinfo).cast(),
                size,
            )
        };
        (n == size).then_some(info)
    }

    /// This user, as a name for a directory of their own in a shared place.
    pub fn user_tag() -> String {
        // SAFETY: getuid(2) cannot fail.
        unsafe { libc::getuid() }.to_string()
    }
}

#[cfg(windows)]
mod windows {
    use super::*;
    use std::os::windows::process::CommandExt;
    use windows_sys::Win32::Foundation::{
        CloseHandle, ERROR_ACCESS_DENIED, FILETIME, GetLastError, HANDLE, STILL_ACTIVE,
    };
    use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, GenerateConsoleCtrlEvent};
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
        SetInformationJobObject, TerminateJobObject,
    };
    use windows_sys::Win32::System::Threading::{
        CREATE_NEW_PROCESS_GROUP, GetExitCodeProcess, GetProcessTimes, OpenProcess,
        PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SET_QUOTA, PROCESS_TERMINATE, TerminateProcess,
    };

    /// A command running `program`. A bare name (no directory, no
    /// extension) is looked up on `PATH` with each of `PATHEXT`'s
    /// extensions, as a shell does: the standard library looks for `.exe`
    /// only, and host configs name launchers like `npx`, which is
    /// `npx.cmd` (the standard library runs `.cmd` and `.bat` files through
    /// `cmd.exe`, quoting the arguments for it).
    pub fn command(program: &str) -> Command {
        Command::new(resolve(program).unwrap_or_else(|| program.into()))
    }

    fn resolve(program: &str) -> Option<std::path::PathBuf> {
        let p = std::path::Path::new(program);
        if program.contains(['/', '\\', ':']) || p.extension().is_some() {
            return None;
        }
        let exts = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path).find_map(|dir| {
            exts.split(';')
                .filter(|e| !e.is_empty())
                .map(|e| dir.join(format!("{program}{e}")))
                .find(|c| c.is_file())
        })
    }

    /// Start the child in a process group of its own: the console's Ctrl-C
    /// no longer reaches it, and Ctrl-Break can be sent to it alone.
    pub fn own_group(cmd: &mut Command) -> &mut Command {
        cmd.creation_flags(CREATE_NEW_PROCESS_GROUP)
    }

    /// How a process ended: its exit code (there are no signals).
    pub fn exit_parts(st: &ExitStatus) -> (Option<i32>, Option<i32>) {
        (st.code(), None)
    }

    /// An owned handle, closed on drop.
    struct Handle(HANDLE);

    // SAFETY: kernel handles may be used and closed from any thread.
    unsafe impl Send for Handle {}
    // SAFETY: as above; the calls made on it are thread-safe.
    unsafe impl Sync for Handle {}

    impl Handle {
        fn open(access: u32, pid: u32) -> Option<Handle> {
            // SAFETY: OpenProcess has no memory-safety preconditions.
            let h = unsafe { OpenProcess(access, 0, pid) };
            (!h.is_null()).then_some(Handle(h))
        }
    }

    impl Drop for Handle {
        fn drop(&mut self) {
            // SAFETY: the handle is ours and closed once.
            unsafe { CloseHandle(self.0) };
        }
    }

    /// A started child and everything it starts: a job object that ends
    /// them all when it closes (so a killed mcpscope leaves none behind),
    /// and the child's own handle (its pid cannot be reused while held).
    pub struct Tree {
        pid: u32,
        process: Option<Handle>,
        job: Option<Handle>,
    }

    impl Tree {
        /// The tree of `child`, started with [`own_group`]. Where no job
        /// can be made (an old system, a job that forbids nesting), the
        /// hard stop ends the child alone.
        pub fn of(child: &Child) -> Tree {
            let pid = child.id();
            let process = Handle::open(
                PROCESS_TERMINATE | PROCESS_SET_QUOTA | PROCESS_QUERY_LIMITED_INFORMATION,
                pid,
            );
            let job = process.as_ref().and_then(|p| {
                // SAFETY: no attributes, no name; the result is checked.
                let job = Handle(unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) });
                if job.0.is_null() {
                    #[allow(clippy::mem_forget, reason = "a null handle has nothing to close")]
                    std::mem::forget(job);
                    return None;
                }
                // SAFETY: a zeroed limit structure is valid; its size is passed.
                let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION =
                    unsafe { std::mem::zeroed() };
                limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
                // SAFETY: both handles are open; the structure outlives the calls.
                let ok = unsafe {
                    SetInformationJobObject(
                        job.0,
                        JobObjectExtendedLimitInformation,
                        (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
                        std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
                    ) != 0
                        && AssignProcessToJobObject(job.0, p.0) != 0
                };
                ok.then_some(job)
            });
            Tree { pid, process, job }
        }

        /// [`KILL`] ends the whole tree at once; any other signal asks the
        /// child's group to stop (Ctrl-Break).
        pub fn signal_group(&self, sig: i32) {
            if sig != KILL {
                // SAFETY: no memory is involved; the group is the child's.
                unsafe { GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, self.pid) };
                return;
            }
            // SAFETY: the handles are open (owned by self).
            unsafe {
                match (&self.job, &self.process) {
                    (Some(job), _) => {
                        TerminateJobObject(job.0, 1);
                    }
                    (None, Some(p)) => {
                        TerminateProcess(p.0, 1);
                    }
                    (None, None) => {}
                }
            }
        }

        /// Pass `sig` on to the child: Ctrl-Break to its group (Ctrl-C
        /// cannot be sent to a group of its own), or the hard stop.
        pub fn signal_child(&self, sig: i32) {
            self.signal_group(sig);
        }
    }

    /// Is process `pid` running?
    pub fn alive(pid: u32) -> bool {
        let Some(h) = Handle::open(PROCESS_QUERY_LIMITED_INFORMATION, pid) else {
            // SAFETY: reads this thread's last error.
            return unsafe { GetLastError() } == ERROR_ACCESS_DENIED;
        };
        let mut code = 0u32;
        // SAFETY: the handle is open; `code` outlives the call.
        let ok = unsafe { GetExitCodeProcess(h.0, &mut code) } != 0;
        ok && code == STILL_ACTIVE as u32
    }

    /// Process `pid`'s creation time (100 ns units since 1601), if readable.
    pub fn start_time(pid: u32) -> Option<u64> {
        let h = Handle::open(PROCESS_QUERY_LIMITED_INFORMATION, pid)?;
        let zero = FILETIME {
            dwLowDateTime: 0,
            dwHighDateTime: 0,
        };
        let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
        // SAFETY: the handle is open; the four out-parameters outlive the call.
        let ok = unsafe { GetProcessTimes(h.0, &mut created, &mut exited, &mut kernel, &mut user) };
        (ok != 0)
            .then(|| (u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime))
    }

    /// This user, as a name for a directory of their own in a shared place.
    pub fn user_tag() -> String {
        std::env::var("USERNAME").unwrap_or_else(|_| "user".into())
    }
}
