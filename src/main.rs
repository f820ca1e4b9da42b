use clap::Parser;
use mcpscope::cli::{Cli, Cmd};

fn main() {
    let cli = Cli::parse();
    if let Some(path) = &cli.log_file
        && let Err(e) = mcpscope::selflog::init(path)
    {
        eprintln!("[error] {e}");
        std::process::exit(2);
    }
    let code = match cli.cmd {
        None => mcpscope::tui::run(cli.tui, false),
        Some(Cmd::Demo(mut args)) => {
            args.server.demo = true;
            mcpscope::tui::run(args, true)
        }
        // Without --print, replay is interactive: the TUI owns its runtime.
        Some(Cmd::Replay(a)) if !a.print => mcpscope::tui::replay(&a.file),
        Some(cmd) => headless(cmd),
    };
    tracing::info!(code, "mcpscope exits");
    std::process::exit(code);
}

fn headless(cmd: Cmd) -> i32 {
    mcpscope::cli::block_on(mcpscope::cli::run(cmd))
}
