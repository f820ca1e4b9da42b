//! The Python interpreter the flood servers run on.

/// The interpreter itself, not a shim: a pyenv `python3` is a bash script
/// whose start-up would be charged to whichever side spawns it.
pub fn python() -> std::path::PathBuf {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}
