#!/usr/bin/env node
// Interop check of task tools with the official TypeScript client
// (@modelcontextprotocol/client, pinned in ../package.json), which does not implement the
// 2026-07-28 tasks extension (2.4.0 knows only the 2025-11-25 experimental tasks, and refuses
// `tasks/get` on the 2026 wire itself): it never declares the extension, so a
// `task = "optional"` tool must answer it synchronously, and a `task = "required"` one must
// refuse it with -32021 naming the extension.
//
// Usage: node tasks.mjs --mode legacy|modern -- <server command> [args...]   (stdio)
//        node tasks.mjs --mode legacy|modern --url http://127.0.0.1:PORT/mcp  (HTTP)
//
// Against `conformance-server`. Prints one JSON line on success and exits 0; any failed
// check prints a message to stderr and exits 1.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const TIMEOUT_MS = 20_000;
const TASKS = 'io.modelcontextprotocol/tasks';

function fail(message) {
    process.stderr.write(`tasks.mjs: ${message}\n`);
    process.exit(1);
}

const argv = process.argv.slice(2);
const mode = argv[argv.indexOf('--mode') + 1];
const urlAt = argv.indexOf('--url');
const dashes = argv.indexOf('--');
if (!['legacy', 'modern'].includes(mode)) fail(`--mode must be legacy or modern (got ${mode})`);
const transport =
    urlAt >= 0
        ? new StreamableHTTPClientTransport(new URL(argv[urlAt + 1]))
        : new StdioClientTransport({ command: argv[dashes + 1], args: argv.slice(dashes + 2), stderr: 'inherit' });

const client = new Client({ name: 'mcp-toolkit-interop-ts-tasks', version: '0.0.0' }, { capabilities: {} });
client.setVersionNegotiation(mode === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } });
const opts = { timeout: TIMEOUT_MS };
const timer = setTimeout(() => fail('no end within the deadline'), 2 * TIMEOUT_MS);

try {
    await client.connect(transport, opts);
    const version = client.getNegotiatedProtocolVersion();
    const optional = await client.callTool({ name: 'slow_compute', arguments: { seconds: 0.2, label: 'ts' } }, opts);
    const text = optional.content?.[0]?.text;
    if (text !== 'Computed ts after 0.2 second(s)') fail(`slow_compute: ${JSON.stringify(optional)}`);
    if (optional.taskId !== undefined) fail(`slow_compute came back as a task: ${JSON.stringify(optional)}`);
    let refused;
    try {
        refused = await client.callTool({ name: 'failing_job', arguments: {} }, opts);
    } catch (error) {
        refused = error;
    }
    const code = refused?.code;
    const data = refused?.data;
    if (code !== -32021) fail(`failing_job: expected -32021, got ${JSON.stringify(refused)} (${refused})`);
    if (data?.requiredCapabilities?.extensions?.[TASKS] === undefined) {
        fail(`failing_job: the error does not name the extension: ${JSON.stringify(data)}`);
    }
    process.stdout.write(JSON.stringify({ client: 'ts', mode, version, optional: text, required: code }) + '\n');
    clearTimeout(timer);
    await client.close();
    process.exit(0);
} catch (error) {
    fail(`${error?.stack ?? error}`);
}
