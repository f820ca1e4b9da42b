"""A real host over Streamable HTTP for the proxy tests: the official Python SDK
client (mcp, pinned in requirements.txt) connects to URL, initializes, lists the
tools and calls one with a progress callback, then prints, as one JSON line,
what it observed (protocol, progress, result).

  python sdk_http_host.py URL TOOL ARGS_JSON

When the server elicits, the host prints `{"elicited": MESSAGE}` and waits for
one line on stdin before it accepts with {"name": "proxy"}: a test holds this
host's call in flight while another host runs a whole session.
"""
import json
import sys

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main() -> None:
    url, tool, args_json = sys.argv[1:]
    progress = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append({"progress": p, "total": total, "message": message})

    async def on_elicit(context, params):
        print(json.dumps({"elicited": params.message}), flush=True)
        await anyio.to_thread.run_sync(sys.stdin.readline)
        return types.ElicitResult(action="accept", content={"name": "proxy"})

    async def on_log(params) -> None:
        pass

    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(
            read, write, elicitation_callback=on_elicit, logging_callback=on_log
        ) as session:
            init = await session.initialize()
            await session.list_tools()
            result = await session.call_tool(
                tool, json.loads(args_json), read_timeout_seconds=60.0,
                progress_callback=on_progress)
    print(json.dumps({
        "protocol": init.protocol_version,
        "progress": progress,
        "result": result.model_dump(mode="json", exclude_none=True),
    }), flush=True)


if __name__ == "__main__":
    anyio.run(main)
