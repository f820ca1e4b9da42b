"""A stdio MCP server whose tools/list misbehaves in one way, chosen by its
first argument, for the baseline tests (tests/cli/baseline.rs). Standard
library only. It answers initialize, and every other request with
method-not-found.

    cursor-loop   page 1 lists `a` and names cursor c1, c1 lists `b` and
                  names c2, c2 lists `a` again and names c1: never ends
    endless       every page lists one new tool and names a new cursor
    listed-twice  one page listing `a` twice
    bidi          one page; the tool's description holds U+202E and U+009B
"""
import json
import sys

mode = sys.argv[1]


def tool(name, description="a tool"):
    return {"name": name, "description": description,
            "inputSchema": {"type": "object"}}


def page(cursor):
    if mode == "cursor-loop":
        return {None: ([tool("a")], "c1"), "c1": ([tool("b")], "c2"),
                "c2": ([tool("a")], "c1")}[cursor]
    if mode == "endless":
        n = int(cursor or "0")
        return [tool(f"t{n}")], str(n + 1)
    if mode == "listed-twice":
        return [tool("a"), tool("a")], None
    if mode == "bidi":
        return [tool("a", "safe\u202etxt.exe\u009b[31m")], None
    raise SystemExit(f"unknown mode {mode}")


for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    rid, method = msg["id"], msg["method"]
    if method == "initialize":
        reply = {"result": {"protocolVersion": "2025-11-25",
                            "capabilities": {"tools": {}},
                            "serverInfo": {"name": "hostile-listing", "version": "1"}}}
    elif method == "tools/list":
        cursor = (msg.get("params") or {}).get("cursor")
        tools, nxt = page(cursor)
        result = {"tools": tools}
        if nxt is not None:
            result["nextCursor"] = nxt
        reply = {"result": result}
    else:
        reply = {"error": {"code": -32601, "message": f"no {method}"}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, **reply}) + "\n")
    sys.stdout.flush()
