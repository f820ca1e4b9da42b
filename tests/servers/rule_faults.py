"""A stdio MCP server that breaks, on purpose, one rule per tool: what real
servers were seen doing, so each rule is tested against a real process.

  python3 rule_faults.py [--logging-refused]

Tools (each answers `ok` unless said otherwise):
  ask_anyway        sends elicitation/create whatever the client declared
  roots_anyway      sends roots/list whatever the client declared
  bad_form          sends elicitation/create with a nested requestedSchema
  typed_result      declared outputSchema {n: integer}; returns n as a string
  missing_result    declared outputSchema; returns no structuredContent
  good_result       declared outputSchema; returns a conforming result (clean)
  error_result      declared outputSchema; an isError result without it (clean)
  log_no_data       a notifications/message without data
  ghost_task_status a notifications/tasks/status for a task never created
  late_answer       answers only after the client's notifications/cancelled
  cancel_ack        answers a cancel with the -32800 acknowledgement (clean)
  slow_start        idle 1.2 s (a slow first call), then 3 progress 15 ms apart
                    and the result right after the last (clean: live, not buffered)
The listing also has a duplicate `good_result`, a tool named `has space`
and one whose inputSchema is not an object schema, unless --clean-listing.

--logging-refused declares `logging` and answers logging/setLevel with -32601.
"""
import json
import sys
import time

args = sys.argv[1:]
LOGGING_REFUSED = "--logging-refused" in args
CLEAN_LISTING = "--clean-listing" in args

OUT_SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
NO_ARGS = {"type": "object", "properties": {}}


def tool(name, output=None, schema=None):
    t = {"name": name, "description": name, "inputSchema": schema or NO_ARGS}
    if output:
        t["outputSchema"] = output
    return t


TOOLS = [
    tool("ask_anyway"),
    tool("roots_anyway"),
    tool("bad_form"),
    tool("typed_result", OUT_SCHEMA),
    tool("missing_result", OUT_SCHEMA),
    tool("good_result", OUT_SCHEMA),
    tool("error_result", OUT_SCHEMA),
    tool("log_no_data"),
    tool("ghost_task_status"),
    tool("slow_start"),
    tool("late_answer"),
    tool("cancel_ack"),
]
if not CLEAN_LISTING:
    TOOLS += [tool("good_result", OUT_SCHEMA), tool("has space"), tool("not_an_object", schema={"type": "string"})]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def result(rid, res):
    send({"jsonrpc": "2.0", "id": rid, "result": res})


def text(s):
    return {"content": [{"type": "text", "text": s}], "isError": False}


waiting = {}  # request id -> tool, for the tools that answer a cancel
asked = 0

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    method = msg.get("method")
    rid = msg.get("id")
    if method == "initialize":
        caps = {"tools": {}}
        if LOGGING_REFUSED:
            caps["logging"] = {}
        result(rid, {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": caps,
                     "serverInfo": {"name": "rule-faults", "version": "1"}})
    elif method == "tools/list":
        result(rid, {"tools": TOOLS})
    elif method == "logging/setLevel":
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
    elif method == "notifications/cancelled":
        cancelled = msg["params"]["requestId"]
        name = waiting.pop(json.dumps(cancelled), None)
        if name == "late_answer":
            result(cancelled, text("answered after the cancel"))
        elif name == "cancel_ack":
            send({"jsonrpc": "2.0", "id": cancelled, "error": {"code": -32800, "message": "Request cancelled"}})
    elif method == "tools/call":
        name = msg["params"]["name"]
        if name in ("ask_anyway", "bad_form"):
            asked += 1
            schema = {"type": "object", "properties": {"name": {"type": "string"}}}
            if name == "bad_form":
                schema = {"type": "object", "properties": {"address": {"type": "object", "properties": {}}}}
            send({"jsonrpc": "2.0", "id": f"ask-{asked}", "method": "elicitation/create",
                  "params": {"message": "Who are you?", "requestedSchema": schema}})
            waiting[f"ask-{asked}"] = rid
        elif name == "roots_anyway":
            asked += 1
            send({"jsonrpc": "2.0", "id": f"ask-{asked}", "method": "roots/list", "params": {}})
            waiting[f"ask-{asked}"] = rid
        elif name == "typed_result":
            result(rid, {**text("n"), "structuredContent": {"n": "seven"}})
        elif name == "missing_result":
            result(rid, text("no structure"))
        elif name == "good_result":
            result(rid, {**text("7"), "structuredContent": {"n": 7}})
        elif name == "error_result":
            result(rid, {"content": [{"type": "text", "text": "failed"}], "isError": True})
        elif name == "slow_start":
            token = msg["params"].get("_meta", {}).get("progressToken")
            time.sleep(1.2)
            for i in range(1, 4):
                if token is not None:
                    send({"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": token, "progress": i, "total": 3}})
                if i < 3:
                    time.sleep(0.015)
            result(rid, text("done"))
        elif name == "log_no_data":
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "l"}})
            result(rid, text("logged"))
        elif name == "ghost_task_status":
            send({"jsonrpc": "2.0", "method": "notifications/tasks/status",
                  "params": {"taskId": "ghost-1", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
                             "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000}})
            result(rid, text("told"))
        elif name in ("late_answer", "cancel_ack"):
            waiting[json.dumps(rid)] = name
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "unknown tool"}})
    elif rid is not None and method is None and rid in waiting:
        # The client answered our request: the call it belongs to is done.
        result(waiting.pop(rid), text("asked"))
    elif rid is not None and method is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
