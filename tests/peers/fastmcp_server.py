"""MCP peer server for mcpscope's integration tests, on FastMCP (fastmcp==4.2.3, pinned with its
dependencies in requirements-fastmcp.txt; it runs on the official Python SDK, mcp==2.3.0).

Run with the venv that tests/peers/install.sh creates:

    tests/peers/.installed/fastmcp-venv/bin/python tests/peers/fastmcp_server.py             # stdio
    tests/peers/.installed/fastmcp-venv/bin/python tests/peers/fastmcp_server.py --http 0    # Streamable HTTP
                        # on http://127.0.0.1:PORT/mcp; the bound address is reported on stderr

FastMCP declares `logging` (it registers `logging/setLevel`) and drops messages below the level
a client set (at 2026-07-28, below each request's `_meta` logLevel), so a session of the tools
below is clean:

    slow_task {steps:int=4, delay_ms:int=50}  progress i/steps with "step i of steps" (only when
                                              the call carried a progressToken), logs at
                                              debug/info/warning/error, returns a text
    greet {}                                  elicits a name (elicitation/create; at 2026-07-28 an
                                              input_required result) when the client declared
                                              `elicitation`; otherwise greets "world" without asking
    echo {text:str}                           returns text unchanged
    notes://readme                            a text resource
    summarize {topic, style?}                 a prompt

Deviations, each reproducing what FastMCP (or the SDK session it hands its tools as
`ctx.session`) does when nothing guards it; each returns a text saying what the client answered:

    elicit_unchecked {}   ctx.elicit(...), FastMCP's own API, with no capability check: sends
                          elicitation/create even to a client that did not declare `elicitation`
    sample_unchecked {}   ctx.session.create_message(...): sends sampling/createMessage even to a
                          client that did not declare `sampling`
    roots_unchecked {}    ctx.session.list_roots(): sends roots/list even to a client that did
                          not declare `roots`

With MCPSCOPE_PEER_OTEL=1 in its environment it exports the spans FastMCP makes (a SERVER span
per request, parented on the request's `_meta.traceparent`) over OTLP/HTTP to where the
OTEL_EXPORTER_OTLP_* variables say (opentelemetry-sdk and its OTLP/HTTP exporter, pinned).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import warnings

# The banner, update check and rich tracebacks would write to stderr; the tests want a quiet peer.
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")

# Logging, sampling and roots are marked deprecated (SEP-2577); keep those warnings off stderr.
warnings.simplefilter("ignore", DeprecationWarning)
try:
    from mcp.shared.exceptions import MCPDeprecationWarning

    warnings.simplefilter("ignore", MCPDeprecationWarning)
except ImportError:  # pragma: no cover - other SDK versions
    pass

import mcp_types  # noqa: E402
from fastmcp import Context, FastMCP  # noqa: E402
from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # noqa: E402
from pydantic import BaseModel  # noqa: E402

server = FastMCP(name="mcpscope-fastmcp-peer", version="1.0.0")


def client_declared(ctx: Context, capability: str) -> bool:
    caps = ctx.session.client_capabilities
    return caps is not None and getattr(caps, capability, None) is not None


@server.tool
async def slow_task(ctx: Context, steps: int = 4, delay_ms: int = 50) -> str:
    """Work in `steps` steps of `delay_ms` ms, reporting progress and logging at several levels."""
    await ctx.log(f"slow_task debug: starting {steps} steps", level="debug")
    await ctx.log(f"slow_task info: delay {delay_ms} ms per step", level="info")
    for i in range(1, steps + 1):
        await asyncio.sleep(delay_ms / 1000)
        # FastMCP sends notifications/progress only when the request carried a progressToken.
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
    await ctx.log("slow_task warning: almost done", level="warning")
    await ctx.log("slow_task error: not really an error", level="error")
    return f"slow_task finished {steps} steps"


class Name(BaseModel):
    name: str = "world"


def modern(ctx: Context) -> bool:
    """A 2026-07-28 request: no server->client requests, input comes in a retry."""
    rc = ctx.request_context
    return rc is not None and rc.protocol_version in MODERN_PROTOCOL_VERSIONS


NAME_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "default": "world"}},
    "required": ["name"],
}


def greeting(action: str, content) -> str:
    if action != "accept":
        return f"No name ({action})."
    return f"Hello, {(content or {}).get('name', 'world')}!"


@server.tool
async def greet(ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Ask the user's name (elicitation, if the client declared it) and greet them."""
    if not client_declared(ctx, "elicitation"):
        return "Hello, world!"
    if modern(ctx):
        # 2026-07-28: ask in the result (input_required), read the answer from the retry.
        answer = (ctx.input_responses or {}).get("name")
        if answer is None:
            form = mcp_types.ElicitRequestFormParams(
                message="What is your name?", requested_schema=NAME_SCHEMA
            )
            return mcp_types.InputRequiredResult(
                input_requests={"name": mcp_types.ElicitRequest(params=form)}
            )
        if isinstance(answer, dict):
            return greeting(answer.get("action"), answer.get("content"))
        return greeting(answer.action, answer.content)
    answer = await ctx.elicit("What is your name?", Name)
    if answer.action == "accept":
        return f"Hello, {answer.data.name}!"
    return f"No name ({answer.action})."


@server.tool
def echo(text: str) -> str:
    """Return the given text unchanged."""
    return text


@server.resource("notes://readme", mime_type="text/plain")
def readme() -> str:
    """The peer's notes: a plain text resource."""
    return "mcpscope fastmcp peer: notes"


@server.prompt
def summarize(topic: str, style: str = "short") -> str:
    """Summarize a topic."""
    return f"Summarize {topic} in a {style} style."


# --- deviations: server->client requests without checking the client's capabilities


async def outcome(request) -> str:
    try:
        result = await request
    except Exception as e:  # the client's error answer, as the SDK raised it
        return f"error: {e}"
    return f"answered: {result!r}"


@server.tool
async def elicit_unchecked(ctx: Context) -> str:
    """Elicit with FastMCP's ctx.elicit whether or not the client declared elicitation."""
    try:
        answer = await ctx.elicit("What is your name?", Name)
    except Exception as e:
        return f"elicitation/create: error: {e}"
    return f"elicitation/create: answered: {answer.action}"


@server.tool
async def sample_unchecked(ctx: Context) -> str:
    """Ask for a completion (sampling/createMessage) whether or not the client declared sampling."""
    message = mcp_types.SamplingMessage(
        role="user", content=mcp_types.TextContent(type="text", text="Say hi")
    )
    got = await outcome(ctx.session.create_message(messages=[message], max_tokens=16))
    return f"sampling/createMessage: {got}"


@server.tool
async def roots_unchecked(ctx: Context) -> str:
    """List the client's roots (roots/list) whether or not the client declared roots."""
    return f"roots/list: {await outcome(ctx.session.list_roots())}"


def serve_http(port: int) -> None:
    """Streamable HTTP on 127.0.0.1:PORT (0: any free port) at /mcp, reporting the bound address
    on stderr once the socket listens, so a test need not pick a port."""
    import socket
    import sys

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    print(f"listening on http://127.0.0.1:{bound}/mcp", file=sys.stderr, flush=True)
    server.run(
        "http",
        show_banner=False,
        host="127.0.0.1",
        port=bound,
        path="/mcp",
        log_level="warning",
        sockets=[sock],
    )


def configure_otel() -> None:
    """FastMCP's spans to the OTLP/HTTP endpoint the environment names (MCPSCOPE_PEER_OTEL=1)."""
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(tracer_provider)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--http",
        type=int,
        metavar="PORT",
        help="serve Streamable HTTP on 127.0.0.1:PORT/mcp (0: any free port, reported on stderr)",
    )
    args = parser.parse_args()
    if os.environ.get("MCPSCOPE_PEER_OTEL") == "1":
        configure_otel()
    if args.http is not None:
        serve_http(args.http)
    else:
        server.run("stdio", show_banner=False)


if __name__ == "__main__":
    main()
