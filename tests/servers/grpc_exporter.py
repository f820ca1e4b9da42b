"""A stdio MCP server (initialize handshake) whose one tool, `traced`,
exports a span named `traced-work` over OTLP/gRPC — the OpenTelemetry Python
SDK's own gRPC exporter, to OTEL_EXPORTER_OTLP_ENDPOINT, uncompressed and
without TLS, as servers on the Go SDK and any exporter set to `grpc` send —
before it answers. Run with a Python that has opentelemetry-sdk and
opentelemetry-exporter-otlp-proto-grpc (the Phoenix peer's venv).

  python grpc_exporter.py
"""
import json
import os
import sys

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

provider = TracerProvider(resource=Resource.create({"service.name": "grpc-exporter"}))
provider.add_span_processor(SimpleSpanProcessor(
    OTLPSpanExporter(endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"], insecure=True)))
tracer = provider.get_tracer("grpc-exporter")


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "grpc-exporter", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [
            {"name": "traced", "description": "exports a span over OTLP/gRPC", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        # SimpleSpanProcessor exports as the span ends: it has arrived when this returns.
        with tracer.start_as_current_span("traced-work") as span:
            span.set_attribute("work.kind", "grpc")
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "traced"}]}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
