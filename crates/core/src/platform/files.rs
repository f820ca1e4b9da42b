//! Private files and directories, the special kinds of file a user may
//! name by mistake, and making a directory's new names durable.
//!
//! Unix: files are created mode 0600, directories 0700, and a directory is
//! refused unless it is this user's with no access for others. Windows:
//! the directories mcpscope uses are under the user's profile
//! (`%LOCALAPPDATA%`, `%APPDATA%`), whose inherited access lists already
//! keep other users out; there are no modes to set or check.

use std::fs::{DirBuilder, FileType, Metadata, OpenOptions};
use std::path::Path;

/// What mode bits of a directory others must not have (Unix).
pub type Forbidden = u32;

#[cfg(unix)]
pub use unix::*;
#[cfg(windows)]
pub use windows::*;

#[cfg(unix)]
mod unix {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt};

    /// A device, pipe or socket, by name.
    pub fn special_kind(ft: FileType) -> Option<&'static str> {
        if ft.is_char_device() {
            Some("a character device")
        } else if ft.is_block_device() {
            Some("a block device")
        } else if ft.is_fifo() {
            Some("a pipe")
        } else if ft.is_socket() {
            Some("a socket")
        } else {
            None
        }
    }

    pub fn is_pipe(ft: FileType) -> bool {
        ft.is_fifo()
    }

    /// A file only this user may read and write (0600).
    pub fn private_file(o: &mut OpenOptions) -> &mut OpenOptions {
        o.mode(0o600)
    }

    /// Create `dir` and its parents, closed to others (0700).
    pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
        DirBuilder::new().recursive(true).mode(0o700).create(dir)
    }

    /// fsync a directory: the names created or renamed in it are on disk.
    pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
        std::fs::File::open(dir)?.sync_all()
    }

    /// Which file `meta` (of `path`, links followed) is: its device and inode.
    pub type FileKey = (u64, u64);

    pub fn file_key(_path: &Path, meta: &Metadata) -> Option<FileKey> {
        Some((meta.dev(), meta.ino()))
    }

    /// Why `meta` (a directory) is not private: another owner, or mode
    /// bits in `forbidden` set. `None` when it is.
    pub fn not_private(meta: &Metadata, forbidden: Forbidden) -> Option<NotPrivate> {
        // SAFETY: getuid(2) cannot fail.
        let uid = unsafe { libc::getuid() };
        if meta.uid() != uid {
            return Some(NotPrivate::Owner {
                owner: meta.uid(),
                me: uid,
            });
        }
        let mode = meta.permissions().mode() & 0o777;
        (mode & forbidden != 0).then_some(NotPrivate::Mode(mode))
    }
}

#[cfg(windows)]
mod windows {
    use super::*;

    /// Which file a path names: its canonical path (links resolved; the
    /// stable file index needs an open handle and a newer std).
    pub type FileKey = std::path::PathBuf;

    pub fn file_key(path: &Path, _meta: &Metadata) -> Option<FileKey> {
        std::fs::canonicalize(path).ok()
    }

    /// Windows has no devices, pipes or sockets among the files a path
    /// names in the ordinary directories.
    pub fn special_kind(_ft: FileType) -> Option<&'static str> {
        None
    }

    pub fn is_pipe(_ft: FileType) -> bool {
        false
    }

    /// As any file: private by the directory it is in.
    pub fn private_file(o: &mut OpenOptions) -> &mut OpenOptions {
        o
    }

    /// Create `dir` and its parents; they inherit the profile's access list.
    pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
        DirBuilder::new().recursive(true).create(dir)
    }

    /// Nothing to do: a directory cannot be opened as a file to flush it,
    /// and NTFS journals the names created or renamed in it.
    pub fn sync_dir(_dir: &Path) -> std::io::Result<()> {
        Ok(())
    }

    /// Nothing is checked: see the module's comment.
    pub fn not_private(_meta: &Metadata, _forbidden: Forbidden) -> Option<NotPrivate> {
        None
    }
}

/// Why a directory is not private.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotPrivate {
    /// It belongs to another user (uids).
    Owner { owner: u32, me: u32 },
    /// Others may use it: its mode.
    Mode(u32),
}
