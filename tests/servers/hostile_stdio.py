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
    answer-duplicate-id    answers the call with "id" written twice: the
                           call's id first, then one no request had
    roots-storm N          asks roots/list N times at once, then answers
    stray-progress N       sends N progress notifications for two tokens no
                           request carried (alternately), then answers
    interrupt-parent       sends SIGINT to its parent (mcpscope) and never
                           answers the call: Ctrl-C while a call runs
    task-storm N           sends N notifications/tasks/status, each for a
                           task id of its own that no answer named, then answers
    span-flood N           exports N spans over OTLP/HTTP JSON to
                           $OTEL_EXPORTER_OTLP_ENDPOINT (batches of 2,000),
                           then one span with credentials in its url.full and
                           url.query and two with invalid ids, then answers
                           with the receiver's last answer
    grpc-preface           opens two connections to the OTLP endpoint and
                           sends each the HTTP/2 preface (as an OTLP/gRPC
                           exporter does), reads the first answer, goes, answers
    split-line N           (not MCP: for the stdio proxy) writes the start of
                           a line, waits for one line on stdin, then writes
                           N more bytes of it, its end, and one short line,
                           and exits
"""
import json
import os
import signal
import socket
import sys
import threading
import urllib.request

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
    elif mode == "answer-duplicate-id":
        send(b'{"jsonrpc":"2.0","id":%d,"id":987654,"result":{"content":[]}}\n' % rid)
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
    elif mode == "task-storm":
        send(b"".join(b'{"jsonrpc":"2.0","method":"notifications/tasks/status","params":'
                      b'{"taskId":"ghost-%d","status":"working"}}\n' % i
                      for i in range(count)))
        text_result(rid, "sent")
    elif mode == "span-flood":
        text_result(rid, span_flood())
    elif mode == "grpc-preface":
        text_result(rid, grpc_preface())


def otlp_span(i, trace_id="5b8efff798038103d269b633813fc60c", span_id=None, attrs=()):
    return {"traceId": trace_id, "spanId": span_id or "%016x" % (i + 1),
            "name": "work %d" % i, "kind": 2,
            "startTimeUnixNano": "1000", "endTimeUnixNano": "2000",
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs]}


def export(spans):
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()
    req = urllib.request.Request(os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] + "/v1/traces",
                                 data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read().decode()


def span_flood():
    for start in range(0, count, 2000):
        export([otlp_span(i) for i in range(start, min(count, start + 2000))])
    export([otlp_span(count, attrs=[
        ("url.full", "https://user:pw-secret@api.example/x?token=tok-secret&page=2"),
        ("url.query", "token=tok-secret&page=2")])])
    return export([otlp_span(0, span_id="0a0b0c0d"),
                   otlp_span(0, trace_id="00000000000000000000000000000000")])


def grpc_preface():
    host, port = os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"].split("//")[1].split(":")
    for _ in range(2):
        s = socket.create_connection((host, int(port)), timeout=10)
        # The HTTP/2 connection preface, then an empty SETTINGS frame.
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        try:
            # The receiver's first frame (its SETTINGS), then the peer goes.
            s.recv(4096)
        except OSError:
            pass
        s.close()
    return "sent"


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
