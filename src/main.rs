use clap::Parser;

fn main() {
    let cli = mcpscope::cli::Cli::parse();
    let code = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => {
            let code = rt.block_on(mcpscope::cli::run(cli));
            // Reader threads may still block on a server's pipes; do not wait for them.
            rt.shutdown_background();
            code
        }
        Err(e) => {
            eprintln!("[error] cannot start the async runtime: {e}");
            3
        }
    };
    std::process::exit(code);
}
