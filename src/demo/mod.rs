//! The built-in demo MCP server (`mcpscope demo-server`).

/// Serve MCP over this process's stdin/stdout until stdin closes.
pub async fn run_stdio() -> anyhow::Result<()> {
    Ok(())
}
