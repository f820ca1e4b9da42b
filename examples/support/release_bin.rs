//! The release `mcpscope` binary next to the running example, or exit 2
//! saying how to build it (the benchmarks measure the real binary).

pub fn release_bin() -> std::path::PathBuf {
    let bin = std::env::current_exe()
        .expect("exe")
        .parent()
        .and_then(|p| p.parent())
        .map(|p| p.join("mcpscope"))
        .expect("target dir");
    if !bin.exists() {
        eprintln!(
            "{} not found: run `cargo build --release` first",
            bin.display()
        );
        std::process::exit(2);
    }
    bin
}
