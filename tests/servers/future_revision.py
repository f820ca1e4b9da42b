"""A stdio MCP server from the future: it speaks a protocol revision newer
than any mcpscope knows ("2026-12-15", the one expected next) besides the
ones it does, and fills its messages with what that revision might add:
unknown `_meta` keys, unknown result fields, an unknown notification, an
unknown field in a progress notification. A client that does not
know the revision must go on in the newest one both sides speak.

  python3 future_revision.py [discover]  # server/discover lists 2026-12-15 and 2026-07-28
  python3 future_revision.py handshake   # no server/discover: initialize, answered with 2026-12-15
"""
import json
import sys

FUTURE = "2026-12-15"
HANDSHAKE = len(sys.argv) > 1 and sys.argv[1] == "handshake"
META = {"io.modelcontextprotocol/serverInfo": {"name": "future-revision", "version": "9.0.0"},
        "io.modelcontextprotocol/nextRevisionHint": {"anything": [1, 2]},
        "com.example/unknown": "x"}


def send(m):
    sys.stdout.write(json.dumps(m) + "\n")
    sys.stdout.flush()


def result(i, body):
    body = dict(body)
    if not HANDSHAKE:
        body.setdefault("resultType", "complete")
    body["_meta"] = META
    body["futureField"] = {"added": FUTURE}
    send({"jsonrpc": "2.0", "id": i, "result": body})


for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    method, i = m.get("method"), m.get("id")
    params = m.get("params") or {}
    meta = params.get("_meta") or {}
    if method == "server/discover" and not HANDSHAKE:
        result(i, {"supportedVersions": [FUTURE, "2026-07-28"],
                   "capabilities": {"tools": {}, "futureCapability": {}},
                   "serverInfo": {"name": "future-revision", "version": "9.0.0"}})
    elif method == "initialize" and HANDSHAKE:
        result(i, {"protocolVersion": FUTURE,
                   "capabilities": {"tools": {}, "futureCapability": {}},
                   "serverInfo": {"name": "future-revision", "version": "9.0.0"}})
    elif method == "tools/list":
        result(i, {"tools": [{"name": "echo", "inputSchema": {"type": "object"},
                              "futureToolField": True}]})
    elif method == "tools/call":
        token = meta.get("progressToken")
        send({"jsonrpc": "2.0", "method": "notifications/future/thing",
              "params": {"_meta": META, "what": "a notification of a newer revision"}})
        if token is not None:
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": 1, "total": 1,
                             "futureProgressField": "x", "_meta": META}})
        result(i, {"content": [{"type": "text", "text": "ok", "futureContentField": 1}],
                   "isError": False})
    elif i is not None and method is not None:
        send({"jsonrpc": "2.0", "id": i, "error": {"code": -32601, "message": "Method not found"}})
