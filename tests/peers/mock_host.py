"""A real host for the `mcpscope mock` tests: the official Python SDK client
(mcp, pinned in requirements.txt) connects over stdio (CMD...) or Streamable
HTTP (--url URL), calls TOOL once with a progress callback, a logging
callback and an elicitation callback (the SDK lists the tools itself to
validate the result), and prints one JSON line: every progress, log and
elicitation it saw with the milliseconds since it sent the call, and the
result (or the error the call failed with).

  python mock_host.py TOOL ARGS_JSON (--url URL | CMD [ARGS...])

MOCK_HOST_ANSWER_MS=N answers an elicitation N ms after it came (accepting
the schema's defaults).
"""
import json
import os
import sys
import time

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


async def main() -> None:
    tool, args_json, first, *rest = sys.argv[1:]
    events = []
    t0 = [time.monotonic()]
    answer_ms = int(os.environ.get("MOCK_HOST_ANSWER_MS", "0"))

    def ms() -> float:
        return (time.monotonic() - t0[0]) * 1000.0

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        events.append({"kind": "progress", "ms": ms(), "progress": p, "total": total, "message": message})

    async def on_log(params) -> None:
        events.append({"kind": "log", "ms": ms(), "level": params.level, "logger": params.logger, "data": params.data})

    async def on_elicit(context, params):
        ev = {"kind": "elicit", "ms": ms(), "message": params.message}
        events.append(ev)
        if answer_ms > 0:
            await anyio.sleep(answer_ms / 1000.0)
        props = (params.requested_schema or {}).get("properties", {})
        content = {k: p["default"] for k, p in props.items() if "default" in p}
        ev["answered_ms"] = ms()
        return types.ElicitResult(action="accept", content=content)

    async def session_run(read, write):
        async with ClientSession(
            read, write, elicitation_callback=on_elicit, logging_callback=on_log
        ) as session:
            init = await session.initialize()
            result = error = None
            t0[0] = time.monotonic()
            try:
                r = await session.call_tool(
                    tool, json.loads(args_json), read_timeout_seconds=60.0,
                    progress_callback=on_progress)
                result = r.model_dump(mode="json", exclude_none=True, by_alias=True)
            except Exception as e:  # the error is what the test reads
                error = str(e)
            return init, result, error

    if first == "--url":
        async with streamable_http_client(rest[0]) as (read, write, *_):
            init, result, error = await session_run(read, write)
    else:
        params = StdioServerParameters(command=first, args=rest, env=dict(os.environ))
        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write):
                init, result, error = await session_run(read, write)
    print(json.dumps({
        "server": init.server_info.model_dump(mode="json", exclude_none=True),
        "events": events,
        "result": result,
        "error": error,
    }), flush=True)


if __name__ == "__main__":
    anyio.run(main)
