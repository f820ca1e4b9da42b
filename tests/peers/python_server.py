"""MCP peer server for mcpscope's integration tests, on the official Python SDK (mcp==2.3.0).

Run with the venv that tests/peers/install.sh creates:

    tests/peers/.installed/venv/bin/python tests/peers/python_server.py              # stdio
    tests/peers/.installed/venv/bin/python tests/peers/python_server.py --http 8765  # Streamable HTTP
                                                                   # on http://127.0.0.1:8765/mcp

Tools:
    slow_task {steps:int=4, delay_ms:int=50}  progress i/steps with "step i of steps", logs at
                                              debug/info/warning/error, returns a text
    float_progress {}                         progress 0.5, 1.5, 2.5 of total 3.0
    log_only {}                               logs info + warning, no progress
    echo {text:str}                           returns text unchanged
    current_trace {}                          the W3C trace id of the span the call runs in (the
                                              SDK continues the request's _meta.traceparent), or
                                              "none"
    greet {}                                  elicits a name (default "world"): a mid-call
                                              elicitation/create, or input_required at 2026-07-28

Resources, prompts and completions:
    notes://readme                            a text resource
    notes://{topic}                           a template; `topic` completes from TOPICS
    summarize {topic, style?}                 a prompt; `topic` completes from TOPICS

With MCPSCOPE_PEER_OTEL=1 in its environment it exports OpenTelemetry over OTLP/HTTP (the
OTEL_EXPORTER_OTLP_* variables say where): the SDK's SERVER span per request, and Python
`logging` records (slow_task logs one at info) through the OTel log handler. Never a console
exporter: on stdio it would write into the protocol stream.

By default, like any MCPServer of this SDK, it declares no `logging` capability, answers
`logging/setLevel` with -32601 and still sends `notifications/message` (all levels). With
--logging it registers a `logging/setLevel` handler: `logging: {}` is then declared and
messages below the level set are dropped.
"""

from __future__ import annotations

import argparse
import asyncio
import warnings

# ctx.log (and ctx.debug/info/...) is marked deprecated (logging capability, SEP-2577); keep the
# resulting MCPDeprecationWarning off stderr so the tests see a quiet peer.
warnings.simplefilter("ignore", DeprecationWarning)
try:
    from mcp.shared.exceptions import MCPDeprecationWarning

    warnings.simplefilter("ignore", MCPDeprecationWarning)
except ImportError:  # pragma: no cover - other SDK versions
    pass

import logging  # noqa: E402
import os  # noqa: E402

import mcp_types  # noqa: E402
from typing import Annotated  # noqa: E402

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve  # noqa: E402
from pydantic import BaseModel  # noqa: E402

server = MCPServer(name="mcpscope-python-peer", version="1.0.0", log_level="WARNING")

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
min_level = "debug"  # changed by logging/setLevel when --logging is given


async def log(ctx: Context, level: str, text: str) -> None:
    if LEVELS.index(level) >= LEVELS.index(min_level):
        await ctx.log(level, text)


async def set_level(_ctx, params: mcp_types.SetLevelRequestParams) -> mcp_types.EmptyResult:
    global min_level
    min_level = params.level
    return mcp_types.EmptyResult()


@server.tool()
async def slow_task(ctx: Context, steps: int = 4, delay_ms: int = 50) -> str:
    """Work in `steps` steps of `delay_ms` ms, reporting progress and logging at several levels."""
    await log(ctx, "debug", f"slow_task debug: starting {steps} steps")
    await log(ctx, "info", f"slow_task info: delay {delay_ms} ms per step")
    for i in range(1, steps + 1):
        await asyncio.sleep(delay_ms / 1000)
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
    await log(ctx, "warning", "slow_task warning: almost done")
    await log(ctx, "error", "slow_task error: not really an error")
    logging.getLogger("mcpscope.peer").info("slow_task done after %d steps", steps)
    return f"slow_task finished {steps} steps"


@server.tool()
async def float_progress(ctx: Context) -> str:
    """Report fractional progress values 0.5, 1.5, 2.5 of total 3.0."""
    for value in (0.5, 1.5, 2.5):
        await ctx.report_progress(value, 3.0, f"at {value}")
        await asyncio.sleep(0.01)
    return "float_progress done"


@server.tool()
async def log_only(ctx: Context) -> str:
    """Log at info and warning, without any progress."""
    await log(ctx, "info", "log_only info message")
    await log(ctx, "warning", "log_only warning message")
    return "log_only done"


@server.tool()
def current_trace() -> str:
    """The trace id of the span this call runs in, as 32 hex digits, or "none"."""
    from opentelemetry import trace

    span = trace.get_current_span().get_span_context()
    return format(span.trace_id, "032x") if span.is_valid else "none"


@server.tool()
def echo(text: str) -> str:
    """Return the given text unchanged."""
    return text


class Name(BaseModel):
    name: str = "world"


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@server.tool()
def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Ask the user's name (elicitation; input_required in the 2026-07-28 era) and greet them."""
    return f"Hello, {who.name}!"


TOPICS = ("progress", "logging", "protocol", "proxy")


@server.resource("notes://readme", mime_type="text/plain")
def readme() -> str:
    """The peer's notes: a plain text resource."""
    return "mcpscope python peer: notes"


@server.resource("notes://{topic}", mime_type="text/plain")
def note(topic: str) -> str:
    """A note on one topic."""
    return f"note on {topic}"


@server.prompt()
def summarize(topic: str, style: str = "short") -> str:
    """Summarize a topic."""
    return f"Summarize {topic} in a {style} style."


@server.completion()
async def complete(ref, argument, context):
    if argument.name == "topic":
        return mcp_types.Completion(values=[t for t in TOPICS if t.startswith(argument.value)])
    return None


def serve_http(port: int) -> None:
    """Streamable HTTP on 127.0.0.1:PORT (0: any free port), reporting the bound
    address on stderr once it listens, so a test need not pick a port."""
    import socket
    import sys

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    app = server.streamable_http_app(host="127.0.0.1")
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


def configure_otel() -> None:
    """Spans and logs to the OTLP/HTTP endpoint the environment names (MCPSCOPE_PEER_OTEL=1)."""
    from opentelemetry import trace
    from opentelemetry._logs import set_logger_provider
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(tracer_provider)
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
    set_logger_provider(logger_provider)
    peer = logging.getLogger("mcpscope.peer")
    peer.setLevel(logging.INFO)
    peer.propagate = False  # the SDK gives the root logger a stderr handler
    peer.addHandler(LoggingHandler(level=logging.INFO, logger_provider=logger_provider))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp (0: any free port, reported on stderr)")
    parser.add_argument("--logging", action="store_true", help="declare logging and honour logging/setLevel")
    args = parser.parse_args()
    if os.environ.get("MCPSCOPE_PEER_OTEL") == "1":
        configure_otel()
    if args.logging:
        server._lowlevel_server.add_request_handler("logging/setLevel", mcp_types.SetLevelRequestParams, set_level)
    if args.http is not None:
        serve_http(args.http)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
