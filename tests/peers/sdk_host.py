"""A real host for the proxy tests: the official Python SDK client (mcp,
pinned in requirements.txt) runs a stdio server, lists its tools, calls one
with a progress callback and prints, as one JSON line, everything it
observed (server info, tools, progress, result), so a run through
`mcpscope proxy` can be compared with a direct one.

  python sdk_host.py TOOL ARGS_JSON CMD [ARGS...]
"""
import json
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    tool, args_json, cmd, *args = sys.argv[1:]
    # The whole environment: the proxy finds its sessions directory through it.
    params = StdioServerParameters(command=cmd, args=args, env=dict(os.environ))
    progress = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append({"progress": p, "total": total, "message": message})

    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                tools = [t.name for t in (await session.list_tools()).tools]
                result = await session.call_tool(
                    tool, json.loads(args_json), read_timeout_seconds=60.0,
                    progress_callback=on_progress)
    print(json.dumps({
        "server": init.server_info.model_dump(mode="json", exclude_none=True),
        "protocol": init.protocol_version,
        "tools": tools,
        "progress": progress,
        "result": result.model_dump(mode="json", exclude_none=True),
    }))


if __name__ == "__main__":
    anyio.run(main)
