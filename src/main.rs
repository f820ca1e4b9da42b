//! The binary: parse the command line, start the runtime, dispatch to one of
//! the two faces (the TUI, or a headless command).

use clap::Parser;
use mcpscope::cli::{Cli, Cmd, TuiArgs};

// Only the static Linux builds use it (and the tests, everywhere).
#[cfg(any(test, all(target_os = "linux", target_env = "musl")))]
mod fastmem;

/// The static Linux builds: musl's allocator would cost ingest about 14% CPU.
#[cfg(all(target_os = "linux", target_env = "musl"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Before any server is started: an aborting build stops them on panic.
    mcpscope::platform::started::stop_on_panic(mcpscope::platform::process::alive);
    let cli = Cli::parse();
    // Before anything is opened or written: no output onto an input.
    let (inputs, outputs) = cli.files();
    if let Err(code) = mcpscope::cli::refuse_same_files(&inputs, &outputs) {
        std::process::exit(code);
    }
    if let Some(path) = &cli.log_file
        && let Err(e) = mcpscope::selflog::init(path)
    {
        eprintln!("[error] {e}");
        std::process::exit(2);
    }
    let code = match cli.cmd {
        None => interactive(cli.tui),
        Some(Cmd::Demo(mut args)) => {
            args.server.demo = true;
            interactive(args)
        }
        // Without --print, replay is interactive.
        Some(Cmd::Replay(a)) if !a.print => block_on(mcpscope::tui::replay(&a.file)),
        Some(Cmd::Attach(a)) if !a.print => {
            block_on(mcpscope::tui::attach(a.name.as_deref(), a.intercept))
        }
        Some(Cmd::Proxy(a)) if a.listen.is_none() => {
            // The stdio proxy's runtime only checks and keeps the registry:
            // background work beside the forwarding threads (which this
            // thread starts). The HTTP proxy forwards on its runtime.
            mcpscope::priority::mark_process_background();
            block_on(mcpscope::cli::run(Cmd::Proxy(a)))
        }
        Some(cmd) => block_on(mcpscope::cli::run(cmd)),
    };
    // Recordings are written by threads of their own: let them finish.
    mcpscope::trace::record::wait_all();
    // A result that could not be written is not a success.
    let code = mcpscope::cli::stdout::finish(code);
    tracing::info!(code, "mcpscope exits");
    std::process::exit(code);
}

/// The TUI on a live server: its arguments as core values.
fn interactive(args: TuiArgs) -> i32 {
    if let Err(code) = mcpscope::tui::require_terminal() {
        return code;
    }
    let otlp = match args.otlp.config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("[error] {e}");
            return 2;
        }
    };
    let launch = match args.server.launch(args.record.as_deref()) {
        Ok(mut l) => {
            l.auth = args.server.auth_config(mcpscope::cli::auth::Face::Tui);
            l
        }
        Err(e) => {
            eprintln!("[error] {e}");
            return 2;
        }
    };
    block_on(mcpscope::tui::run(mcpscope::tui::Config {
        launch,
        server_cli: mcpscope::cli::spec::server_cli(&args.server),
        runs: args.run,
        run_file: args.run_file,
        run_level: args.run_level,
        focus: args.focus,
        theme: args.theme,
        fps: args.fps,
        otel_receiver: mcpscope::otel::ReceiverAt::of(
            args.server.no_otel_receiver,
            args.server.otel_receiver,
        ),
        otlp,
    }))
}

/// Run a face's future on a fresh multi-thread runtime and return its exit
/// code (3 when no runtime can start).
fn block_on(fut: impl std::future::Future<Output = i32>) -> i32 {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_start(mcpscope::priority::lower_if_background)
        .build()
    {
        Ok(rt) => {
            let code = rt.block_on(fut);
            // Reader threads may still block on a server's pipes; do not wait for them.
            rt.shutdown_background();
            code
        }
        Err(e) => {
            eprintln!("[error] cannot start the async runtime: {e}");
            3
        }
    }
}
