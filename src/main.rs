fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("demo-server") {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        if let Err(e) = rt.block_on(mcpscope::demo::run_stdio()) {
            eprintln!("demo-server: {e:#}");
            std::process::exit(3);
        }
    }
}
