#!/usr/bin/env node
// Interop check of confirmed tools (`mcp_runtime::tool::Confirm`) with the official
// TypeScript client (@modelcontextprotocol/client, pinned in ../package.json): the client
// answers the server's confirmation question the way a user would, and the script reports
// what was asked and what the call returned. Whether the tool acted (a file written, a
// command run) is checked by the test that runs this script.
//
// Usage: node confirm.mjs --mode legacy|modern --answer accept|decline|cancel|none
//                         --tool NAME --arguments JSON -- <server command> [args...]
//   `--answer none` declares no elicitation capability (a client that cannot be asked).
//
// Prints one JSON line and exits 0:
//   {"mode":"legacy","version":"2025-11-25","asked":["<message>"],"schema":{...},
//    "isError":false,"text":"..."}
// Any failed check prints a message to stderr and exits 1.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const TIMEOUT_MS = 20_000;

function fail(message) {
    process.stderr.write(`confirm.mjs: ${message}\n`);
    process.exit(1);
}

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
if (dashes < 0 || dashes + 1 >= argv.length) fail('missing the server command after --');
const flag = (name) => {
    const at = argv.indexOf(name);
    return at >= 0 && at < dashes ? argv[at + 1] : undefined;
};
const mode = flag('--mode');
const answer = flag('--answer');
const tool = flag('--tool');
const args = JSON.parse(flag('--arguments') ?? '{}');
if (!['legacy', 'modern'].includes(mode)) fail(`--mode must be legacy or modern (got ${mode})`);
if (!['accept', 'decline', 'cancel', 'none'].includes(answer)) fail(`--answer: ${answer}`);
if (!tool) fail('--tool is required');

const capabilities = answer === 'none' ? {} : { elicitation: { form: {} } };
const client = new Client({ name: 'mcp-toolkit-interop-ts-confirm', version: '0.0.0' }, { capabilities });
client.setVersionNegotiation(mode === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } });
const asked = [];
let schema;
if (answer !== 'none') {
    client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params.message);
        schema = request.params.requestedSchema;
        return answer === 'accept' ? { action: 'accept', content: {} } : { action: answer };
    });
}
const transport = new StdioClientTransport({ command: argv[dashes + 1], args: argv.slice(dashes + 2), stderr: 'inherit' });
const timer = setTimeout(() => fail('no end within the deadline'), 2 * TIMEOUT_MS);
try {
    await client.connect(transport, { timeout: TIMEOUT_MS });
    const version = client.getNegotiatedProtocolVersion();
    const result = await client.callTool({ name: tool, arguments: args }, { timeout: TIMEOUT_MS });
    const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    process.stdout.write(JSON.stringify({ mode, version, asked, schema, isError: result.isError === true, text }) + '\n');
    clearTimeout(timer);
    await client.close();
    process.exit(0);
} catch (error) {
    fail(`${error?.stack ?? error}`);
}
