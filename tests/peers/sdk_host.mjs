#!/usr/bin/env node
// A real host for the proxy tests: the official TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in node/package.json) runs a stdio
// server, lists its tools, calls one with a progress handler and prints, as
// one JSON line, everything it observed (server info, tools, progress,
// result), so a run through `mcpscope proxy` can be compared with a direct one.
//   node sdk_host.mjs TOOL ARGS_JSON CMD [ARGS...]
// SDK_HOST_SUMMARY=1 prints counts and the call's wall time instead of every
// notification (for floods: examples/proxy_bench.rs); SDK_HOST_META='{...}'
// is sent as the call's _meta (beside the SDK's progressToken).
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const esm = join(here, '.installed/node/node_modules/@modelcontextprotocol/sdk/dist/esm');
const load = (p) => import(pathToFileURL(join(esm, p)).href);
const { Client } = await load('client/index.js');
const { StdioClientTransport } = await load('client/stdio.js');

const [tool, argsJson, command, ...args] = process.argv.slice(2);
// The whole environment: the proxy finds its sessions directory through it.
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: 'ignore' });
const client = new Client({ name: 'proxy-test-ts-host', version: '1.0.0' });
await client.connect(transport);
const tools = (await client.listTools()).tools.map((t) => t.name);
const summary = process.env.SDK_HOST_SUMMARY === '1';
const progress = [];
let received = 0;
const t0 = performance.now();
const meta = process.env.SDK_HOST_META ? { _meta: JSON.parse(process.env.SDK_HOST_META) } : {};
const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson), ...meta }, undefined, {
  onprogress: (p) => {
    received++;
    if (!summary) progress.push(p);
  },
  timeout: 600_000,
  resetTimeoutOnProgress: true,
});
const callS = (performance.now() - t0) / 1000;
await client.close();
if (summary) {
  console.log(JSON.stringify({ received, call_s: callS, is_error: !!result.isError }));
  process.exit(0);
}
console.log(JSON.stringify({
  server: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  tools,
  progress,
  result,
}));
