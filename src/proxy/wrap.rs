//! `wrap`: a host config's server entry rewritten to run through
//! `mcpscope proxy`, and written back in place with everything else —
//! comments, trailing commas, order, indentation — left as it was: only the
//! entry's `command` and `args` values are replaced in the text.

use crate::platform::files::sync_dir;
use crate::session::config::{config_from_text, strip_jsonc};
use crate::session::{ServerSpec, UsageError};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A config entry and what it becomes.
#[derive(Debug)]
pub struct Wrapped {
    pub name: String,
    /// The entry as it will read (JSON).
    pub entry: Value,
    /// The whole file's new text.
    pub text: String,
    /// For a URL entry: the proxy to start (argv), which the entry now
    /// points at.
    pub run: Option<Vec<String>>,
}

fn err(msg: String) -> UsageError {
    UsageError(msg)
}

/// Rewrite server `name` of the config `text` (from `path`) to run
/// `exe proxy --name NAME -- COMMAND ARGS...`; a URL entry is pointed at
/// `http://LISTEN/PATH` instead, where `exe proxy --listen LISTEN --url URL`
/// is to run.
pub fn wrap_text(
    text: &str,
    path: &Path,
    name: &str,
    exe: &str,
    listen: &str,
) -> Result<Wrapped, UsageError> {
    let spec = config_from_text(text, path, Some(name))?;
    let argv = match &spec {
        ServerSpec::Stdio { cmd, .. } => cmd.argv.clone(),
        ServerSpec::Http { url, .. } => return wrap_url(text, path, name, exe, listen, url),
    };
    if argv.get(1).is_some_and(|a| a == "proxy")
        && Path::new(&argv[0])
            .file_name()
            .is_some_and(|f| f.to_string_lossy().starts_with("mcpscope"))
    {
        return Err(err(format!(
            "server {name:?} in {} already runs through `mcpscope proxy`",
            path.display()
        )));
    }
    let mut args = vec![
        "proxy".to_string(),
        "--name".into(),
        name.to_string(),
        "--".into(),
    ];
    args.extend(argv);
    let members = entry_members(text, path, name)?;
    let span = |k: &str| members.iter().find(|m| m.0 == k).map(|m| (m.1, m.2));
    let command = span("command").ok_or_else(|| {
        err(format!(
            "server {name:?} in {} has no \"command\"",
            path.display()
        ))
    })?;
    let cmd_json = serde_json::to_string(exe).unwrap_or_default();
    let args_json = serde_json::to_string(&args).unwrap_or_default();
    let mut out = text.to_string();
    // Edits from the end backwards, so earlier offsets stay valid.
    let mut edits: Vec<(usize, usize, String)> = vec![(command.0, command.1, cmd_json)];
    match span("args") {
        Some((s, e)) => edits.push((s, e, args_json)),
        None => edits.push((command.1, command.1, format!(", \"args\": {args_json}"))),
    }
    crate::sort::by_key(&mut edits, |e| std::cmp::Reverse(e.0));
    for (s, e, with) in edits {
        out.replace_range(s..e, &with);
    }
    // The result must read back as the proxy around the original command.
    let again = config_from_text(&out, path, Some(name))?;
    let ok = matches!(&again, ServerSpec::Stdio { cmd, .. }
        if cmd.argv.first().map(String::as_str) == Some(exe) && cmd.argv[1..] == args[..]);
    if !ok {
        return Err(err(format!(
            "rewriting server {name:?} in {} did not give the expected entry; the file is left alone",
            path.display()
        )));
    }
    let new_entry = read_back(&out, name)?;
    Ok(Wrapped {
        name: name.to_string(),
        entry: new_entry,
        text: out,
        run: None,
    })
}

fn wrap_url(
    text: &str,
    path: &Path,
    name: &str,
    exe: &str,
    listen: &str,
    url: &str,
) -> Result<Wrapped, UsageError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| {
        err(format!(
            "server {name:?} in {}: url {url:?}: {e}",
            path.display()
        ))
    })?;
    if parsed.host_str().is_some_and(|h| {
        let origin = format!("{h}:{}", parsed.port_or_known_default().unwrap_or(0));
        origin == listen
    }) {
        return Err(err(format!(
            "server {name:?} in {} already points at {listen}",
            path.display()
        )));
    }
    let mut local = format!("http://{listen}{}", parsed.path());
    if let Some(q) = parsed.query() {
        local.push('?');
        local.push_str(q);
    }
    let members = entry_members(text, path, name)?;
    let (s, e) = members
        .iter()
        .find(|m| m.0 == "url" || m.0 == "serverUrl")
        .map(|m| (m.1, m.2))
        .ok_or_else(|| {
            err(format!(
                "server {name:?} in {} has no \"url\"",
                path.display()
            ))
        })?;
    let mut out = text.to_string();
    out.replace_range(s..e, &serde_json::to_string(&local).unwrap_or_default());
    let again = config_from_text(&out, path, Some(name))?;
    if !matches!(&again, ServerSpec::Http { url, .. } if *url == local) {
        return Err(err(format!(
            "rewriting server {name:?} in {} did not give the expected entry; the file is left alone",
            path.display()
        )));
    }
    let new_entry = read_back(&out, name)?;
    let run = vec![
        exe.to_string(),
        "proxy".into(),
        "--name".into(),
        name.to_string(),
        "--listen".into(),
        listen.to_string(),
        "--url".into(),
        url.to_string(),
    ];
    Ok(Wrapped {
        name: name.to_string(),
        entry: new_entry,
        text: out,
        run: Some(run),
    })
}

/// Write `w` over the config at `path`, after a backup beside it
/// (`FILE.bak`, or `FILE.bak.N` when that exists); returns the backup.
///
/// A symlinked config (a dotfile manager's) keeps its link: the file it
/// points at is the one backed up and replaced. The backup is complete and
/// on disk before the original is touched, and the new text replaces the
/// original in one rename, so a crash at any point leaves the config whole.
/// On failure the error names the file that failed, and nothing this wrote
/// is left behind (a backup of an original left as it was is clutter).
pub fn write(path: &Path, w: &Wrapped) -> std::io::Result<PathBuf> {
    let target = std::fs::canonicalize(path)
        .map_err(|e| failed(format!("cannot resolve {}", path.display()), e))?;
    let dir = target.parent().unwrap_or(Path::new("/"));
    let perms = std::fs::metadata(&target)
        .map_err(|e| failed(format!("cannot read {}", target.display()), e))?
        .permissions();
    let backup = write_backup(&target, &perms)?;
    let replaced = sync_dir(dir)
        .map_err(|e| failed(format!("cannot sync {}", dir.display()), e))
        .and_then(|()| replace(&target, &w.text, &perms));
    if let Err(e) = replaced {
        let _ = std::fs::remove_file(&backup);
        return Err(e);
    }
    // Makes the rename itself durable; the config is whole either way.
    let _ = sync_dir(dir);
    Ok(backup)
}

/// An error that says which file and what was being done to it.
fn failed(what: String, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// Copy `target` to a new backup file beside it, synced; a backup that
/// could not be written whole is removed.
fn write_backup(target: &Path, perms: &std::fs::Permissions) -> std::io::Result<PathBuf> {
    let (backup, mut file) = create_backup_file(target)?;
    let copied = std::fs::File::open(target)
        .and_then(|mut src| std::io::copy(&mut src, &mut file))
        .and_then(|_| file.set_permissions(perms.clone()))
        .and_then(|()| file.sync_all());
    if let Err(e) = copied {
        drop(file);
        let _ = std::fs::remove_file(&backup);
        return Err(failed(
            format!("cannot write the backup {}", backup.display()),
            e,
        ));
    }
    Ok(backup)
}

/// Backups kept beside a config at most (`FILE.bak` to `FILE.bak.999`).
const MAX_BACKUPS: u32 = 1000;

/// The first of `FILE.bak`, `FILE.bak.1`, ... that does not exist, created
/// exclusively (an existing file, or a symlink planted there, is never
/// written through) and readable by its owner only until its mode is set.
fn create_backup_file(target: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    for n in 0..MAX_BACKUPS {
        let backup = match n {
            0 => PathBuf::from(format!("{}.bak", target.display())),
            n => PathBuf::from(format!("{}.bak.{n}", target.display())),
        };
        match create_private(&backup) {
            Ok(f) => return Ok((backup, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(failed(
                    format!("cannot create the backup {}", backup.display()),
                    e,
                ));
            }
        }
    }
    Err(std::io::Error::other(format!(
        "cannot back up {}: {MAX_BACKUPS} backups of it exist already",
        target.display()
    )))
}

/// A new file, mode 0600; fails if anything is at `path` already.
fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    crate::files::private_file(std::fs::OpenOptions::new().write(true).create_new(true)).open(path)
}

/// Replace `target` by `text` with its mode: written to a temporary file
/// beside it, synced, then renamed over it. The temporary file does not
/// outlive a failure.
fn replace(target: &Path, text: &str, perms: &std::fs::Permissions) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = PathBuf::from(format!(
        "{}.mcpscope-tmp.{}",
        target.display(),
        std::process::id()
    ));
    let mut f =
        create_private(&tmp).map_err(|e| failed(format!("cannot create {}", tmp.display()), e))?;
    let written = f
        .write_all(text.as_bytes())
        .and_then(|()| f.set_permissions(perms.clone()))
        .and_then(|()| f.sync_all())
        .map_err(|e| {
            failed(
                format!(
                    "cannot write the new {} to {}",
                    target.display(),
                    tmp.display()
                ),
                e,
            )
        })
        .and_then(|()| {
            std::fs::rename(&tmp, target)
                .map_err(|e| failed(format!("cannot replace {}", target.display()), e))
        });
    drop(f);
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The members of server `name`'s entry: (key, value start, value end),
/// as byte offsets into `text` (comments blanked, offsets kept).
fn entry_members(
    text: &str,
    path: &Path,
    name: &str,
) -> Result<Vec<(String, usize, usize)>, UsageError> {
    let plain = strip_jsonc(text);
    let entry = locate_entry(&plain, name)
        .ok_or_else(|| err(format!("cannot find server {name:?} in {}", path.display())))?;
    members(plain.as_bytes(), entry.0).ok_or_else(|| {
        err(format!(
            "server {name:?} in {} is not an object",
            path.display()
        ))
    })
}

/// Server `name`'s entry as JSON, read back from rewritten text.
fn read_back(out: &str, name: &str) -> Result<Value, UsageError> {
    let plain = strip_jsonc(out);
    locate_entry(&plain, name)
        .and_then(|(s, e)| serde_json::from_str(&plain[s..e]).ok())
        .ok_or_else(|| err(format!("cannot read server {name:?} back after rewriting")))
}

/// The byte span of server `name`'s value in `plain` (comment-free JSON).
fn locate_entry(plain: &str, name: &str) -> Option<(usize, usize)> {
    let b = plain.as_bytes();
    let root = skip_ws(b, 0);
    let top = members(b, root)?;
    let find =
        |ms: &[(String, usize, usize)], k: &str| ms.iter().find(|m| m.0 == k).map(|m| (m.1, m.2));
    let servers = ["mcpServers", "servers"].iter().find_map(|k| {
        find(&top, k).or_else(|| {
            let (s, _) = find(&top, "mcp")?;
            find(&members(b, s)?, k)
        })
    })?;
    find(&members(b, servers.0)?, name)
}

/// The members of the object starting at `i`: key, value start, value end.
fn members(b: &[u8], i: usize) -> Option<Vec<(String, usize, usize)>> {
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = skip_ws(b, i + 1);
    while b.get(i) == Some(&b'"') {
        let kend = value_end(b, i)?;
        let key: String = serde_json::from_slice(&b[i..kend]).ok()?;
        i = skip_ws(b, kend);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let vs = skip_ws(b, i + 1);
        let ve = value_end(b, vs)?;
        out.push((key, vs, ve));
        i = skip_ws(b, ve);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    (b.get(i) == Some(&b'}')).then_some(out)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// Where the JSON value starting at `i` ends (exclusive).
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => {
            let mut j = i + 1;
            loop {
                match *b.get(j)? {
                    b'\\' => j += 2,
                    b'"' => return Some(j + 1),
                    _ => j += 1,
                }
            }
        }
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match *b.get(j)? {
                    b'"' => {
                        j = value_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while b
                .get(j)
                .is_some_and(|c| !matches!(c, b',' | b'}' | b']') && !c.is_ascii_whitespace())
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VSCODE: &str = r#"{
  // my servers
  "servers": {
    "weather": {
      "type": "stdio",
      "command": "uvx", /* pinned */
      "args": ["weather-mcp", "--units", "metric",],
      "env": {"KEY": "x"},
    },
    "other": {"command": "node", "args": ["o.js"]},
  },
}
"#;

    #[test]
    fn only_command_and_args_change_comments_and_the_rest_stay() {
        let w = wrap_text(
            VSCODE,
            Path::new("mcp.json"),
            "weather",
            "/bin/mcpscope",
            "127.0.0.1:1",
        )
        .unwrap();
        let want = VSCODE
            .replace(r#""command": "uvx""#, r#""command": "/bin/mcpscope""#)
            .replace(
                r#"["weather-mcp", "--units", "metric",]"#,
                r#"["proxy","--name","weather","--","uvx","weather-mcp","--units","metric"]"#,
            );
        assert_eq!(w.text, want);
        assert_eq!(w.entry["env"]["KEY"], "x");
        assert_eq!(w.entry["args"][4], "uvx");
        // Wrapping twice is refused.
        let again = wrap_text(
            &w.text,
            Path::new("mcp.json"),
            "weather",
            "/bin/mcpscope",
            "127.0.0.1:1",
        );
        assert!(again.unwrap_err().0.contains("already runs through"));
    }

    #[test]
    fn an_entry_without_args_gets_them_after_its_command() {
        let text = r#"{"mcpServers": {"s": {"command": "/srv/s"}}}"#;
        let w = wrap_text(text, Path::new("c.json"), "s", "mcpscope", "127.0.0.1:1").unwrap();
        assert_eq!(
            w.text,
            r#"{"mcpServers": {"s": {"command": "mcpscope", "args": ["proxy","--name","s","--","/srv/s"]}}}"#
        );
    }

    #[test]
    fn a_url_entry_points_at_the_proxy_to_start_and_unknown_names_are_errors() {
        let text = "{\"mcpServers\": {\"u\": {\"url\": \"https://api.example/mcp?x=1\", // remote\n \"headers\": {\"Authorization\": \"Bearer t\"}}}}";
        let w = wrap_text(text, Path::new("c.json"), "u", "mcpscope", "127.0.0.1:4123").unwrap();
        assert_eq!(
            w.text,
            text.replace(
                "https://api.example/mcp?x=1",
                "http://127.0.0.1:4123/mcp?x=1"
            )
        );
        assert_eq!(
            w.run.unwrap(),
            [
                "mcpscope",
                "proxy",
                "--name",
                "u",
                "--listen",
                "127.0.0.1:4123",
                "--url",
                "https://api.example/mcp?x=1"
            ]
        );
        assert_eq!(w.entry["headers"]["Authorization"], "Bearer t");
        let again = wrap_text(
            &w.text,
            Path::new("c.json"),
            "u",
            "mcpscope",
            "127.0.0.1:4123",
        );
        assert!(again.unwrap_err().0.contains("already points at"));
        let e =
            wrap_text(text, Path::new("c.json"), "nope", "mcpscope", "127.0.0.1:1").unwrap_err();
        assert!(e.0.contains("no server \"nope\""), "{}", e.0);
    }
}
