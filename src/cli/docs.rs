//! `mcpscope completions SHELL` and `mcpscope man`: shell completions and a
//! man page generated from the clap definitions, so they can never disagree
//! with the options the binary really takes.

use clap::CommandFactory;
use clap_complete::Shell;

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// A subcommand's own page (`mcpscope man call > mcpscope-call.1`);
    /// without it, the main page, which lists the subcommands.
    pub command: Option<String>,
}

/// The command line as users see it, without hidden subcommands (the
/// conformance suite's client): clap_complete would offer them, and clap
/// cannot remove a subcommand, so the top level is rebuilt around its
/// arguments and the visible subcommands.
fn visible() -> clap::Command {
    let full = super::Cli::command();
    let mut cmd = clap::Command::new("mcpscope")
        .version(env!("CARGO_PKG_VERSION"))
        .args(full.get_arguments().cloned())
        .groups(full.get_groups().cloned())
        .args_conflicts_with_subcommands(true);
    if let Some(a) = full.get_about() {
        cmd = cmd.about(a.clone());
    }
    cmd.subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned())
}

/// The completion script for `shell`, as bytes.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut cmd = visible();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "mcpscope", &mut out);
    out
}

/// The man page (roff): the top-level options and the list of subcommands,
/// or with `command`, that subcommand's page (`mcpscope-call(1)`, the name
/// the main page refers to). `None` when there is no such subcommand.
pub fn man(command: Option<&str>) -> Option<std::io::Result<Vec<u8>>> {
    let top = super::Cli::command();
    let page = match command {
        None => top,
        Some(name) => {
            let sub = top
                .get_subcommands()
                .find(|s| s.get_name() == name && !s.is_hide_set())?
                .clone();
            sub.display_name(format!("mcpscope-{name}"))
                .bin_name(format!("mcpscope {name}"))
        }
    };
    let mut out = Vec::new();
    Some(
        clap_mangen::Man::new(page)
            // Every page names the program and release, as the main one does.
            .source(format!("mcpscope {}", env!("CARGO_PKG_VERSION")))
            .render(&mut out)
            .map(|()| out),
    )
}

/// Write to stdout (a write error is said, and fails the command, at the
/// end of `main`: `super::stdout`).
fn emit(bytes: std::io::Result<Vec<u8>>) -> i32 {
    match bytes {
        Ok(b) => {
            super::stdout::write(&b);
            0
        }
        Err(e) => {
            eprintln!("[error] cannot write: {e}");
            1
        }
    }
}

pub fn run_completions(a: CompletionsArgs) -> i32 {
    emit(Ok(completions(a.shell)))
}

pub fn run_man(a: ManArgs) -> i32 {
    match man(a.command.as_deref()) {
        Some(page) => emit(page),
        None => {
            eprintln!(
                "[error] no subcommand {:?}: see `mcpscope --help`",
                a.command.unwrap_or_default()
            );
            2
        }
    }
}
