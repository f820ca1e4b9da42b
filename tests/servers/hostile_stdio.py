"""A stdio MCP server that misbehaves in one way, chosen by its first
argument, for the tests of mcpscope's own bounds (tests/robustness/client_bounds.rs).
Standard library only. It answers initialize and any other request with an
empty result; `tools/call` does what the mode says:

    elicit-required        asks elicitation/create for a form whose required
                           `name` has no default (`age` has one), then answers
                           the call with the elicitation's answer as its text
    answer-invalid-utf8    answers the call with a result holding bytes that
                           are not UTF-8
    answer-duplicate-top   answers the call with "result" written twice
    answer-duplicate-inner answers the call with a result whose "content"
                           key is written twice
    roots-storm N          asks roots/list N times at once, then answers
    stray-progress N       sends N progress notifications for two tokens no
                           request carried (alternately), then answers
    interrupt-parent       sends SIGINT to its parent (mcpscope) and never
                           answers the call: Ctrl-C while a call runs
    split-line N           (not MCP: for the stdio proxy) writes the start of
                           a line, waits for one line on stdin, then writes
                           N more bytes of it, its end, and one short line,
                           and exits
"""
import json
import os
import signal
import sys
import threading

out = sys.stdout.buffer
mode = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 0
lock = threading.Lock()


def send(raw):
    with lock:
        out.write(raw)
        out.flush()


def send_json(msg):
    send(json.dumps(msg, separators=(",", ":")).encode() + b"\n")


def result(rid, value):
    send_json({"jsonrpc": "2.0", "id": rid, "result": value})


def text_result(rid, text):
    result(rid, {"content": [{"type": "text", "text": text}]})


INIT = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
        "serverInfo": {"name": "hostile", "version": "1"}}
FORM = {"type": "object",
        "properties": {"name": {"type": "string"},
                       "age": {"type": "integer", "default": 30}},
        "required": ["name"]}


def call(rid):
    if mode == "elicit-required":
        pending_calls["e1"] = rid
        send_json({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create",
                   "params": {"message": "Who are you?", "requestedSchema": FORM}})
    elif mode == "answer-invalid-utf8":
        send(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"\xff\xfe"}]}}\n' % rid)
    elif mode == "answer-duplicate-top":
        send(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[]},"result":{"content":[]}}\n' % rid)
    elif mode == "answer-duplicate-inner":
        send(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[],"content":[{"type":"text","text":"b"}]}}\n' % rid)
    elif mode == "roots-storm":
        # Written from a thread: the answers keep being read meanwhile.
        def storm():
            send(b"".join(b'{"jsonrpc":"2.0","id":"r%d","method":"roots/list"}\n' % i
                          for i in range(count)))
            text_result(rid, "asked")
        threading.Thread(target=storm).start()
    elif mode == "stray-progress":
        send(b"".join(b'{"jsonrpc":"2.0","method":"notifications/progress","params":'
                      b'{"progressToken":"stray-%s","progress":%d}}\n' % (b"ab"[i % 2:i % 2 + 1], i)
                      for i in range(count)))
        text_result(rid, "sent")
    elif mode == "interrupt-parent":
        os.kill(os.getppid(), signal.SIGINT)


pending_calls = {}


def split_line():
    send(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'
         + b"s" * 1000)
    sys.stdin.buffer.readline()
    send(b"x" * count + b'"}}\n')
    send(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"after"}}\n')


if mode == "split-line":
    split_line()
    sys.exit(0)

for line in sys.stdin.buffer:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method is None and rid in pending_calls:
        # The answer to our elicitation: the call reports it.
        answer = msg.get("result", msg.get("error"))
        text_result(pending_calls.pop(rid), json.dumps(answer, sort_keys=True))
    elif method == "initialize":
        result(rid, INIT)
    elif method == "tools/call":
        call(rid)
    elif rid is not None and method is not None:
        result(rid, {})
