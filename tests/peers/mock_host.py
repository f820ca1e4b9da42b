"""A real host for the `mcpscope mock` tests: the official Python SDK client
(mcp, pinned in requirements.txt) connects over stdio (CMD...) or Streamable
HTTP (--url URL), calls TOOL once with a progress callback, a logging
callback and an elicitation callback (the SDK lists the tools itself to
validate the result), and prints one JSON line: every progress, log and
elicitation it saw with the milliseconds since it sent the call (`ms` when
its callback ran, `arrived_ms` when it reached the read stream), and the
result (or the error the call failed with).

  python mock_host.py TOOL ARGS_JSON (--url URL | CMD [ARGS...])

MOCK_HOST_ANSWER_MS=N answers an elicitation N ms after it came (accepting
the schema's defaults). MOCK_HOST_ERA=auto connects as the SDK's Client does
by default (probe `server/discover`, fall back to `initialize`) instead of
the `initialize` handshake; MOCK_HOST_LOG_LEVEL=L then asks for logs at L
on each request (2026-07-28).
"""
import json
import os
import sys
import time

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client._probe import negotiate_auto
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


class Wrapped:
    """A stream of the session's, passed through."""

    def __init__(self, inner):
        self._inner = inner

    async def __aenter__(self):
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name):
        return getattr(self._inner, name)


class CallTimed(Wrapped):
    """The session's write stream, noting when the call and the answers to
    the server's requests go out: the SDK spends a while (more on a loaded
    machine) between deciding to send and sending."""

    def __init__(self, inner, on_call, on_answer):
        super().__init__(inner)
        self._on_call = on_call
        self._on_answer = on_answer

    async def send(self, item):
        message = getattr(item, "message", item)
        for obj in (message, getattr(message, "root", None)):
            if getattr(obj, "method", None) == "tools/call":
                self._on_call()
            elif getattr(obj, "result", None) is not None:
                self._on_answer()
        await self._inner.send(item)


def progress_key(p, total, message) -> str:
    return json.dumps(["progress", float(p), None if total is None else float(total), message])


def log_key(level, logger, data) -> str:
    return json.dumps(["log", level, logger, data], sort_keys=True)


class ArrivalTimed(Wrapped):
    """The session's read stream, noting when each progress and log
    notification arrives (by its content): on a loaded machine the
    callbacks can run tens of milliseconds later, which is the host's own
    time."""

    def __init__(self, inner, now, arrivals):
        super().__init__(inner)
        self._now = now
        self._arrivals = arrivals

    def _note(self, item):
        message = getattr(item, "message", item)
        for obj in (message, getattr(message, "root", None)):
            method = getattr(obj, "method", None)
            params = getattr(obj, "params", None)
            if not isinstance(params, dict):
                continue
            if method == "notifications/progress":
                key = progress_key(params.get("progress"), params.get("total"), params.get("message"))
            elif method == "notifications/message":
                key = log_key(params.get("level"), params.get("logger"), params.get("data"))
            else:
                continue
            self._arrivals.setdefault(key, []).append(self._now())
        return item

    async def receive(self):
        return self._note(await self._inner.receive())

    def __aiter__(self):
        return self

    async def __anext__(self):
        return self._note(await self._inner.__anext__())


async def main() -> None:
    tool, args_json, first, *rest = sys.argv[1:]
    events = []
    t0 = [time.monotonic()]
    answer_ms = int(os.environ.get("MOCK_HOST_ANSWER_MS", "0"))

    def ms() -> float:
        return (time.monotonic() - t0[0]) * 1000.0

    arrivals = {}

    def arrived(key):
        times = arrivals.get(key)
        return times.pop(0) if times else None

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        events.append({"kind": "progress", "ms": ms(), "arrived_ms": arrived(progress_key(p, total, message)),
                       "progress": p, "total": total, "message": message})

    async def on_log(params) -> None:
        events.append({"kind": "log", "ms": ms(), "arrived_ms": arrived(log_key(params.level, params.logger, params.data)),
                       "level": params.level, "logger": params.logger, "data": params.data})

    async def on_elicit(context, params):
        ev = {"kind": "elicit", "ms": ms(), "message": params.message}
        events.append(ev)
        if answer_ms > 0:
            await anyio.sleep(answer_ms / 1000.0)
        props = (params.requested_schema or {}).get("properties", {})
        content = {k: p["default"] for k, p in props.items() if "default" in p}
        ev["answered_ms"] = ms()  # until it is sent (CallTimed)
        return types.ElicitResult(action="accept", content=content)

    def call_sent() -> None:
        t0[0] = time.monotonic()

    def answer_sent() -> None:
        asked = [e for e in events if e["kind"] == "elicit"]
        if asked:
            asked[-1]["answered_ms"] = ms()

    era = os.environ.get("MOCK_HOST_ERA", "legacy")

    async def session_run(read, write):
        async with ClientSession(
            ArrivalTimed(read, ms, arrivals), CallTimed(write, call_sent, answer_sent), elicitation_callback=on_elicit, logging_callback=on_log,
            log_level=os.environ.get("MOCK_HOST_LOG_LEVEL"),
        ) as session:
            if era == "auto":
                await negotiate_auto(session)
            else:
                await session.initialize()
            init = session
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
        "server": init.server_info.model_dump(mode="json", exclude_none=True) if init.server_info else None,
        "protocol": init.protocol_version,
        "events": events,
        "result": result,
        "error": error,
    }), flush=True)


if __name__ == "__main__":
    anyio.run(main)
