//! Files a user names on the command line or in the config directory:
//! settings, themes, server configs and traces. They are read only when they
//! are regular files (a device like /dev/zero never ends, a directory is not
//! data) and, for config files, only up to a size a hand-written file never
//! reaches, so a wrong path fails at once with a clear message instead of
//! growing memory until the process is killed.
//!
//! Directories mcpscope keeps private files in (the token cache, live
//! session entries) must be its user's, closed to others: [`private_dir`].

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::platform::files as platform;

/// Settings, themes and server configs are hand-written: 1 MiB is far more
/// than any of them needs.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// What kind of file a path names, for error messages.
pub fn kind_of(ft: std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if let Some(kind) = platform::special_kind(ft) {
        kind
    } else if ft.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Open `path` and check (on the open file, so nothing can swap it in
/// between) that it is a regular file, or also a pipe when `pipes` is set.
pub fn open_regular(path: &Path, pipes: bool) -> io::Result<File> {
    let accept = |ft: std::fs::FileType| ft.is_file() || (pipes && platform::is_pipe(ft));
    // Checked before opening too: opening a pipe nobody writes to blocks.
    let mut ft = std::fs::metadata(path)?.file_type();
    if accept(ft) {
        let f = File::open(path)?;
        ft = f.metadata()?.file_type();
        if accept(ft) {
            return Ok(f);
        }
    }
    let accepted = if pipes {
        "only regular files and pipes are read"
    } else {
        "only regular files are read"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} ({accepted})", kind_of(ft)),
    ))
}

/// Read a small text file: regular files only, at most `limit` bytes.
pub fn read_small(path: &Path, limit: u64) -> io::Result<String> {
    read_capped(path, limit, false).map_err(|e| match e.kind() {
        io::ErrorKind::FileTooLarge => io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "larger than {} KiB; a config file is never this big",
                limit / 1024
            ),
        ),
        _ => e,
    })
}

/// Read a text file a user names: a regular file (or also a pipe when
/// `pipes` is set, as traces are read), at most `limit` bytes. A device
/// (`/dev/zero` never ends) or a directory is refused before reading; a
/// larger file is `FileTooLarge`, saying the limit in MiB.
pub fn read_capped(path: &Path, limit: u64, pipes: bool) -> io::Result<String> {
    let f = open_regular(path, pipes)?;
    let mut text = String::new();
    // One byte more than allowed tells "exactly at the limit" from "over it",
    // and a file growing while it is read cannot get past the limit either.
    f.take(limit + 1).read_to_string(&mut text)?;
    if text.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than {} MiB", limit >> 20),
        ));
    }
    Ok(text)
}

/// A path named on the command line and what it is for (`--record`,
/// `--write-baseline`, the trace `A`): said in the refusal.
pub type Named<'a> = (&'a str, &'a Path);

/// An output that names the same file as an input or an earlier output:
/// `what`/`path` is the output, `role` ("the input" or "the output"),
/// `other_what`/`other` the file it would destroy.
#[derive(Debug, thiserror::Error)]
#[error(
    "{what} {} is the same file as {role} {other_what} {}: writing it would destroy it; name another file",
    path.display(),
    other.display()
)]
pub struct SameFile {
    pub what: String,
    pub path: PathBuf,
    pub role: &'static str,
    pub other_what: String,
    pub other: PathBuf,
}

/// Refuse when an output names the same file as an input or as another
/// output: writing it would destroy the input (or the other output) before
/// the command ends, and the command would still exit 0. "The same file" is
/// the same device and inode after following links (a symlink, a hard link,
/// `./x` and `x`); a not-yet-existing output cannot be an input, but two of
/// them naming one new file (the same directory and name) still collide.
/// Devices and pipes (`/dev/null`, `/dev/stdout`) are not files an output
/// can destroy and are left alone.
///
/// The error is boxed: two paths make it large (over 128 bytes on
/// Windows), and the `Ok` path should not carry that size.
pub fn distinct_outputs(inputs: &[Named<'_>], outputs: &[Named<'_>]) -> Result<(), Box<SameFile>> {
    let ids = |named: &[Named<'_>]| -> Vec<Option<FileId>> {
        named.iter().map(|(_, p)| FileId::of(p)).collect()
    };
    let (ins, outs) = (ids(inputs), ids(outputs));
    for (i, (out, id)) in outputs.iter().zip(&outs).enumerate() {
        let Some(id) = id else { continue };
        let clash = inputs
            .iter()
            .zip(&ins)
            .map(|(n, other)| (n, other, "the input"))
            .chain(
                outputs[..i]
                    .iter()
                    .zip(&outs[..i])
                    .map(|(n, other)| (n, other, "the output")),
            )
            .find(|(_, other, _)| other.as_ref() == Some(id));
        if let Some(((what, path), _, role)) = clash {
            return Err(Box::new(SameFile {
                what: out.0.to_string(),
                path: out.1.to_path_buf(),
                role,
                other_what: what.to_string(),
                other: path.to_path_buf(),
            }));
        }
    }
    Ok(())
}

/// Which file a path names, for [`distinct_outputs`].
#[derive(Debug, PartialEq, Eq)]
enum FileId {
    /// An existing regular file (through any links).
    Existing(platform::FileKey),
    /// A file not created yet: its directory (resolved) and its name.
    New(std::path::PathBuf, std::ffi::OsString),
}

impl FileId {
    fn of(path: &Path) -> Option<FileId> {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => platform::file_key(path, &meta).map(FileId::Existing),
            Ok(_) => None,
            Err(_) => {
                let name = path.file_name()?.to_owned();
                let dir = match path.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d,
                    _ => Path::new("."),
                };
                Some(FileId::New(std::fs::canonicalize(dir).ok()?, name))
            }
        }
    }
}

/// What other users may do in a directory mcpscope keeps its files in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Others {
    /// Nothing: not even list it (live session entries).
    Nothing,
    /// List and read it, not write to it (the files in it are 0600 on
    /// their own, and a data directory made by other tools may be 0755).
    Read,
}

impl Others {
    /// The mode bits that must be clear.
    fn forbidden(self) -> platform::Forbidden {
        match self {
            Others::Nothing => 0o077,
            Others::Read => 0o022,
        }
    }
}

/// Create `dir` (mode 0700, with its parents) if it is missing, and refuse
/// it unless it is this user's, with no more access for `others`
/// ([`check_private_dir`]). On Windows the directory is private by where it
/// is (under the user's profile): see [`crate::platform::files`].
pub fn private_dir(dir: &Path, others: Others) -> io::Result<()> {
    platform::create_private_dir(dir).map_err(|e| at(dir, e))?;
    check_private_dir(dir, others)
}

/// `e`, saying which directory it is about.
fn at(dir: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", dir.display()))
}

/// Refuse `dir` unless it is a directory of this user that `others` may do
/// no more in: another user who can write to it can swap the files in it
/// (a token cache naming their endpoints, a session entry pointing at
/// their trace) for their own.
pub fn check_private_dir(dir: &Path, others: Others) -> io::Result<()> {
    let meta = std::fs::metadata(dir).map_err(|e| at(dir, e))?;
    let refuse = |why: String| Err(at(dir, io::Error::other(why)));
    if !meta.is_dir() {
        return refuse(format!("{}, not a directory", kind_of(meta.file_type())));
    }
    match platform::not_private(&meta, others.forbidden()) {
        None => Ok(()),
        Some(platform::NotPrivate::Owner { owner, me }) => refuse(format!(
            "the directory belongs to another user (uid {owner}), not to this one (uid {me})"
        )),
        Some(platform::NotPrivate::Mode(mode)) => {
            let may = match others {
                Others::Nothing => "enter",
                Others::Read => "write to",
            };
            refuse(format!(
                "other users may {may} the directory (mode {mode:03o}); `chmod 700 {}` makes it private",
                dir.display()
            ))
        }
    }
}

/// Options that create a file only this user may read and write (0600 on
/// Unix).
pub fn private_file(o: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    platform::private_file(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn a_directory_others_may_use_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("a/b");
        private_dir(&d, Others::Nothing).unwrap();
        let mode = std::fs::metadata(&d).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let set = |m: u32| std::fs::set_permissions(&d, std::fs::Permissions::from_mode(m));
        for (open, others, may) in [
            (0o770, Others::Read, "write to"),
            (0o702, Others::Read, "write to"),
            (0o750, Others::Nothing, "enter"),
            (0o701, Others::Nothing, "enter"),
        ] {
            set(open).unwrap();
            let e = private_dir(&d, others).unwrap_err().to_string();
            assert!(
                e.contains(&format!(
                    "other users may {may} the directory (mode {open:03o})"
                )) && e.contains("chmod 700"),
                "{e}"
            );
        }
        set(0o755).unwrap();
        assert!(check_private_dir(&d, Others::Read).is_ok());
        let f = t.path().join("file");
        std::fs::write(&f, "").unwrap();
        let e = check_private_dir(&f, Others::Read).unwrap_err().to_string();
        assert!(e.contains("a regular file, not a directory"), "{e}");
    }

    #[test]
    #[cfg(unix)]
    fn devices_and_directories_are_refused_at_once() {
        let e = read_small(Path::new("/dev/zero"), MAX_CONFIG_BYTES).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let e = read_small(d.path(), MAX_CONFIG_BYTES).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
        let e = open_regular(Path::new("/dev/zero"), true).unwrap_err();
        assert!(e.to_string().contains("regular files and pipes"), "{e}");
    }

    #[test]
    fn size_is_capped_exactly() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("c.json");
        std::fs::write(&p, vec![b' '; 1024]).unwrap();
        assert_eq!(read_small(&p, 1024).unwrap().len(), 1024);
        let e = read_small(&p, 1023).unwrap_err();
        assert!(e.to_string().contains("larger than"), "{e}");
    }
}
