//! Files a user names on the command line or in the config directory:
//! settings, themes, server configs and traces. They are read only when they
//! are regular files (a device like /dev/zero never ends, a directory is not
//! data) and, for config files, only up to a size a hand-written file never
//! reaches, so a wrong path fails at once with a clear message instead of
//! growing memory until the process is killed.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Settings, themes and server configs are hand-written: 1 MiB is far more
/// than any of them needs.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// What kind of file a path names, for error messages.
pub fn kind_of(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_dir() {
        "a directory"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_fifo() {
        "a pipe"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Open `path` and check (on the open file, so nothing can swap it in
/// between) that it is a regular file, or also a pipe when `pipes` is set.
pub fn open_regular(path: &Path, pipes: bool) -> io::Result<File> {
    use std::os::unix::fs::FileTypeExt;
    let accept = |ft: std::fs::FileType| ft.is_file() || (pipes && ft.is_fifo());
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
    let f = open_regular(path, false)?;
    let mut text = String::new();
    // One byte more than allowed tells "exactly at the limit" from "over it",
    // and a file growing while it is read cannot get past the limit either.
    f.take(limit + 1).read_to_string(&mut text)?;
    if text.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "larger than {} KiB; a config file is never this big",
                limit / 1024
            ),
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
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
