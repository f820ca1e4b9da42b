//! The stdio proxy's hold on the host's pipes: it takes the host's stdin
//! and stdout away from the process's standard streams, which then read and
//! write the null device. Only the returned files hold the host's pipes, so
//! dropping one closes that pipe for the host, and the server never
//! inherits them.

use std::fs::File;

/// The host's stdin and stdout, taken (see the module's comment).
#[cfg(unix)]
pub fn take_host_stdio() -> std::io::Result<(File, File)> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let dup = |fd: i32| -> std::io::Result<File> {
        // SAFETY: fcntl(2) on a descriptor this process has; the new one is
        // owned by the returned File alone.
        let n = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `n` is a fresh descriptor nothing else owns.
        Ok(unsafe { File::from_raw_fd(n) })
    };
    let host_in = dup(0)?;
    let host_out = dup(1)?;
    let null = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")?;
    for fd in [0, 1] {
        // SAFETY: dup2(2) onto the standard descriptors, which stay open.
        if unsafe { libc::dup2(null.as_raw_fd(), fd) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok((host_in, host_out))
}

/// The host's stdin and stdout, taken (see the module's comment): the
/// standard handles become the null device and the host's handles are
/// made non-inheritable.
#[cfg(windows)]
pub fn take_host_stdio() -> std::io::Result<(File, File)> {
    use std::os::windows::io::{FromRawHandle, IntoRawHandle};
    use windows_sys::Win32::Foundation::{
        HANDLE, HANDLE_FLAG_INHERIT, INVALID_HANDLE_VALUE, SetHandleInformation,
    };
    use windows_sys::Win32::System::Console::{
        GetStdHandle, STD_HANDLE, STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, SetStdHandle,
    };
    let take = |which: STD_HANDLE, null: HANDLE| -> std::io::Result<File> {
        // SAFETY: reads this process's standard handle.
        let h = unsafe { GetStdHandle(which) };
        if h.is_null() || h == INVALID_HANDLE_VALUE {
            return Err(std::io::Error::other("no such standard handle"));
        }
        // SAFETY: the handle is this process's; from now on the standard
        // slot names the null device and the returned File owns `h`.
        unsafe {
            SetHandleInformation(h, HANDLE_FLAG_INHERIT, 0);
            if SetStdHandle(which, null) == 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(File::from_raw_handle(h))
        }
    };
    let null = |read: bool| {
        std::fs::OpenOptions::new()
            .read(read)
            .write(!read)
            .open("NUL")
            .map(IntoRawHandle::into_raw_handle)
    };
    let host_in = take(STD_INPUT_HANDLE, null(true)?)?;
    let host_out = take(STD_OUTPUT_HANDLE, null(false)?)?;
    Ok((host_in, host_out))
}

/// Bytes written to stdout that its reader has not read yet, where the OS
/// says: a pipe (FIONREAD answers on either end), or on Linux a socket pair
/// (Node's child processes get one; TIOCOUTQ counts what the peer has not
/// consumed). 0 when that cannot be known.
#[cfg(unix)]
pub fn stdout_unread() -> usize {
    // SAFETY: fstat(2) fills a plain struct through a valid pointer.
    let mut st = unsafe { std::mem::zeroed::<libc::stat>() };
    // SAFETY: as above; descriptor 1 is this process's.
    if unsafe { libc::fstat(1, &mut st) } < 0 {
        return 0;
    }
    let request = match st.st_mode & libc::S_IFMT {
        libc::S_IFIFO => libc::FIONREAD,
        #[cfg(target_os = "linux")]
        libc::S_IFSOCK => libc::TIOCOUTQ,
        _ => return 0,
    };
    let mut n: libc::c_int = 0;
    // SAFETY: both requests write one int through a valid pointer.
    let r = unsafe { libc::ioctl(1, request, &mut n) };
    if r < 0 { 0 } else { n.max(0) as usize }
}

/// Not known on Windows: 0.
#[cfg(windows)]
pub fn stdout_unread() -> usize {
    0
}
