"""A stdio MCP server (initialize handshake) with one tool, `work`, whose
behaviour a variant changes, so a test recorded against the plain server can
be run against a changed one:

  python3 progress_variants.py [VARIANT]

  plain      (default) logs at info, then 4 progress 10 ms apart, each
             "step i of 4", then the result
  reordered  the last progress notification after the result
  log-added  also logs at error before answering
  slower     the same, with 600 ms between progress notifications
  fewer      2 progress notifications instead of 4
  error      the result is an error (isError)
  schema     the tool's input schema changed: `n` is a string, and required
"""
import json
import sys
import time

VARIANT = sys.argv[1] if len(sys.argv) > 1 else "plain"
GAP = 0.6 if VARIANT == "slower" else 0.01
STEPS = 2 if VARIANT == "fewer" else 4
level = "info"
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def log(lvl, text):
    if LEVELS.index(lvl) >= LEVELS.index(level):
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": lvl, "logger": "work", "data": text}})


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}, "logging": {}},
            "serverInfo": {"name": "progress-variants", "version": "1"}}})
    elif method == "logging/setLevel":
        level = msg["params"]["level"]
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
        if VARIANT == "schema":
            schema = {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [{
            "name": "work", "description": "work in steps", "inputSchema": schema}]}})
    elif method == "tools/call":
        token = msg["params"].get("_meta", {}).get("progressToken")
        log("info", "work: starting")

        def progress(i):
            if token is not None:
                send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                    "progressToken": token, "progress": i, "total": STEPS,
                    "message": f"step {i} of {STEPS}"}})

        last = STEPS if VARIANT != "reordered" else STEPS - 1
        for i in range(1, last + 1):
            time.sleep(GAP)
            progress(i)
        if VARIANT == "log-added":
            log("error", "work: <img src=x onerror=alert(1)> | went wrong")
        is_error = VARIANT == "error"
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "content": [{"type": "text", "text": "failed" if is_error else "done"}], "isError": is_error}})
        if VARIANT == "reordered":
            progress(STEPS)
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
