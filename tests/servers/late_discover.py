"""A stdio MCP server that speaks only 2026-07-28 and answers its first
`server/discover` late: only once the client has given up on it and sent
`notifications/cancelled` (as a server slower to start than a probe's
limit does). It then refuses `initialize` with -32022, as stateless-only
servers do, and serves `server/discover` and `tools/call echo`.

  python3 late_discover.py
"""
import json
import sys

V = "2026-07-28"
held = None


def send(m):
    sys.stdout.write(json.dumps(m) + "\n")
    sys.stdout.flush()


def discover_result(i):
    return {"jsonrpc": "2.0", "id": i, "result": {
        "resultType": "complete",
        "supportedVersions": [V],
        "capabilities": {"tools": {}},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "late-discover", "version": "1.0.0"}},
    }}


for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    method, i = m.get("method"), m.get("id")
    if method == "server/discover":
        if held is None:
            held = i
            continue
        send(discover_result(i))
    elif method == "notifications/cancelled" and held is not None:
        send(discover_result(held))
    elif method == "initialize":
        send({"jsonrpc": "2.0", "id": i, "error": {
            "code": -32022, "message": "this server speaks only 2026-07-28",
            "data": {"supported": [V], "requested": m.get("params", {}).get("protocolVersion")}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": i, "result": {"resultType": "complete", "tools": [
            {"name": "echo", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": i, "result": {"resultType": "complete",
                                                   "content": [{"type": "text", "text": "ok"}]}})
    elif i is not None:
        send({"jsonrpc": "2.0", "id": i, "error": {"code": -32601, "message": "Method not found"}})
