#!/usr/bin/env node
// A real host for the `mcpscope mock` tests: the official TypeScript SDK
// client (@modelcontextprotocol/sdk, pinned in node/package.json) connects
// over stdio (CMD...) or Streamable HTTP (--url URL), optionally lists the
// tools, calls TOOL once with a progress handler, a log handler and an
// elicitation handler, and prints one JSON line: every progress, log and
// elicitation it saw with the milliseconds since the call went to the
// transport (`ms` when its callback ran, `arrived_ms` when it reached the
// transport), and the
// result (or the error the call failed with).
//   node mock_host.mjs TOOL ARGS_JSON (--url URL | CMD [ARGS...])
// MOCK_HOST_LIST=1 lists the tools first; MOCK_HOST_ANSWER_MS=N answers an
// elicitation N ms after it came (accepting the schema's defaults).
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const esm = join(here, '.installed/node/node_modules/@modelcontextprotocol/sdk/dist/esm');
const load = (p) => import(pathToFileURL(join(esm, p)).href);
const { Client } = await load('client/index.js');
const { StdioClientTransport } = await load('client/stdio.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const { LoggingMessageNotificationSchema, ElicitRequestSchema } = await load('types.js');

const [tool, argsJson, first, ...rest] = process.argv.slice(2);
const transport = first === '--url'
  ? new StreamableHTTPClientTransport(new URL(rest[0]))
  : new StdioClientTransport({ command: first, args: rest, env: process.env, stderr: 'ignore' });
const client = new Client(
  { name: 'mock-test-ts-host', version: '1.0.0' },
  { capabilities: { elicitation: {} } },
);
const events = [];
let t0 = performance.now();
const ms = () => performance.now() - t0;
// When each notification reached the transport, by its content: the
// callbacks run later, the first ones tens of milliseconds later on a
// loaded machine (the SDK's cold paths), which is the host's own time.
const arrivals = new Map();
const progressKey = (p) => JSON.stringify(['progress', p.progress, p.total ?? null, p.message ?? null]);
const logKey = (p) => JSON.stringify(['log', p.level, p.logger ?? null, p.data]);
const arrived = (key) => arrivals.get(key)?.shift() ?? null;
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  const p = n.params;
  events.push({ kind: 'log', ms: ms(), arrived_ms: arrived(logKey(p)), level: p.level, logger: p.logger ?? null, data: p.data });
});
const answerMs = Number(process.env.MOCK_HOST_ANSWER_MS ?? 0);
// An elicitation counts from when it reached the transport: the SDK's first
// one spends tens of milliseconds validating before the handler runs.
let elicitArrived = null;
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  const ev = { kind: 'elicit', ms: elicitArrived ?? ms(), handler_ms: ms(), message: req.params.message };
  events.push(ev);
  if (answerMs > 0) await new Promise((r) => setTimeout(r, answerMs));
  const props = req.params.requestedSchema?.properties ?? {};
  const content = Object.fromEntries(
    Object.entries(props).filter(([, p]) => 'default' in p).map(([k, p]) => [k, p.default]),
  );
  ev.answered_ms = ms();
  return { action: 'accept', content };
});
await client.connect(transport);
if (process.env.MOCK_HOST_LIST === '1') await client.listTools();
// Times count from the moment the call goes to the transport: the SDK's
// first call spends tens of milliseconds before it sends anything.
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  if (message.method === 'tools/call') t0 = performance.now();
  // An answer counts from when it goes out, not from when the handler returned.
  const asked = events.filter((e) => e.kind === 'elicit').at(-1);
  if ('result' in message && asked) asked.answered_ms = ms();
  return send(message, options);
};
const onmessage = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message.method === 'elicitation/create') elicitArrived = ms();
  const key = message.method === 'notifications/progress' ? progressKey(message.params)
    : message.method === 'notifications/message' ? logKey(message.params) : null;
  if (key) arrivals.set(key, [...(arrivals.get(key) ?? []), ms()]);
  onmessage(message, extra);
};
let result = null;
let error = null;
t0 = performance.now();
try {
  result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) }, undefined, {
    onprogress: (p) => events.push({ kind: 'progress', ms: ms(), arrived_ms: arrived(progressKey(p)), progress: p.progress, total: p.total ?? null, message: p.message ?? null }),
    timeout: 60_000,
  });
} catch (e) {
  error = String(e?.message ?? e);
}
await client.close();
console.log(JSON.stringify({ server: client.getServerVersion() ?? null, events, result, error }));
process.exit(0);
