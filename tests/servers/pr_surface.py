"""A stdio MCP server (2025-11-25, standard library only) for the action's
pull-request compare mode (tests/cli/ci_action.rs): a test commits it to a
git repository with the name of a variant in a file `variant` beside it,
then commits a change of that file, as a pull request would change the
server. The variant is read from the checkout the server runs in, so a
comparison that ran both sides in one checkout would find no difference.

    python3 pr_surface.py

  plain      (default) one tool, `work`: read-only, input {n: integer}
             with nothing required; a call logs at info, then answers
  described  the same, with another description, which holds a run of
             backticks (a summary's code fence must survive it)
  required   `work` is no longer read-only and requires a new input
             `path`: a less safe change
"""
import json
import pathlib
import sys

try:
    VARIANT = (pathlib.Path(__file__).parent / "variant").read_text().strip()
except FileNotFoundError:
    VARIANT = "plain"


def work():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    hints = {"readOnlyHint": True}
    description = "counts to n"
    if VARIANT == "described":
        description = "counts to n, as in ````count(n)```` and ```sh\nwork\n```"
    if VARIANT == "required":
        schema["properties"]["path"] = {"type": "string"}
        schema["required"] = ["path"]
        hints = {"readOnlyHint": False}
    return {"name": "work", "description": description,
            "inputSchema": schema, "annotations": hints}


def send(msg):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **msg}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    rid, method = msg["id"], msg["method"]
    if method == "initialize":
        reply = {"result": {"protocolVersion": "2025-11-25",
                            "capabilities": {"tools": {}, "logging": {}},
                            "serverInfo": {"name": "pr-surface", "version": "1"}}}
    elif method == "tools/list":
        reply = {"result": {"tools": [work()]}}
    elif method == "logging/setLevel":
        reply = {"result": {}}
    elif method == "tools/call":
        send({"method": "notifications/message",
              "params": {"level": "info", "logger": "work", "data": "counting"}})
        reply = {"result": {"content": [{"type": "text", "text": "done"}]}}
    else:
        reply = {"error": {"code": -32601, "message": f"no {method}"}}
    send({"id": rid, **reply})
