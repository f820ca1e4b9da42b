"""A legacy HTTP+SSE MCP server (2024-11-05 transport) whose `endpoint`
event names an absolute URL on its own origin, as some servers write it.
Standard library only. It binds 127.0.0.1 port 0 and reports
`listening on http://127.0.0.1:PORT/sse` on stderr.

GET /sse opens the stream (the endpoint event first, then one `message`
event per answer); POST /messages?sessionId=1 (the session in the query,
as the TypeScript SDK names it) takes a request and answers it on the
stream, the answer queued before the POST's 202. It knows initialize,
tools/list and tools/call of `echo`.
"""
import json
import queue
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

answers = queue.Queue()


def answer(msg):
    method, rid = msg.get("method"), msg.get("id")
    if rid is None:
        return None
    if method == "initialize":
        result = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "legacy-absolute", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object",
                  "properties": {"text": {"type": "string"}}}}]}
    elif method == "tools/call":
        text = msg.get("params", {}).get("arguments", {}).get("text", "")
        result = {"content": [{"type": "text", "text": text}]}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "not found"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if not self.path.startswith("/sse"):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        port = self.server.server_address[1]
        self.wfile.write(
            f"event: endpoint\ndata: http://127.0.0.1:{port}/messages?sessionId=1\n\n".encode())
        self.wfile.flush()
        while True:
            msg = answers.get()
            try:
                self.wfile.write(f"event: message\ndata: {json.dumps(msg)}\n\n".encode())
                self.wfile.flush()
            except OSError:
                return

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if not self.path.startswith("/messages"):
            self.send_error(404)
            return
        # The answer is on its way before the POST is accepted: whoever
        # posts next is answered after it (tests rely on that order).
        reply = answer(json.loads(body))
        if reply is not None:
            answers.put(reply)
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"listening on http://127.0.0.1:{server.server_address[1]}/sse", file=sys.stderr, flush=True)
server.serve_forever()
