#!/usr/bin/env node
// A long-lived official TypeScript client (@modelcontextprotocol/client, pinned in
// ../package.json) for `cargo mcp dev`'s test (mcp-cli/tests/it/dev.rs): it stays connected
// over stdio while the test edits the project, and takes line commands on stdin.
//
// Usage: node dev-client.mjs [--mode legacy|modern] [--cwd DIR] -- <server command> [args...]
//        node dev-client.mjs [--mode legacy|modern] --url URL     (Streamable HTTP)
//
// The server is started with this process's whole environment (the SDK's default passes only
// a few variables, and the test's CARGO_TARGET_DIR must reach cargo) and its stderr inherited.
// In modern mode (pinned to 2026-07-28: a `server/discover` probe on a sibling process, then
// the per-request envelope) the client opens a `subscriptions/listen` stream for tool list
// changes; in legacy mode (`initialize`) the server sends them unsolicited.
//
// Commands, one per line on stdin; each answer is one JSON line on stdout:
//   list                      -> {"command":"list","ok":true,"tools":["add",...]}
//   call NAME JSON_ARGS       -> {"command":"call","ok":true,"result":{...}}
//                                or {"command":"call","ok":false,"error":{"code":..,"message":..}}
//   wait-list-changed [MS]    -> {"command":"wait-list-changed","ok":true,"seen":N} once a
//                                notifications/tools/list_changed arrived that no earlier wait
//                                consumed (ok:false after MS, default 120000)
//   quit                      -> closes the client (ending the server) and exits 0
// After connecting it prints {"event":"connected","protocolVersion":..,"capabilities":..};
// every list_changed notification is also printed as {"event":"list_changed","method":..}.
// A failed connection prints {"event":"failed","error":..} and exits 1.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createInterface } from 'node:readline';

const CONNECT_TIMEOUT_MS = 300_000;
const REQUEST_TIMEOUT_MS = 60_000;
const MODERN_VERSION = '2026-07-28';

function out(value) {
    process.stdout.write(`${JSON.stringify(value)}\n`);
}

function parseArgs(argv) {
    let mode = 'legacy';
    let cwd;
    let url;
    let i = 0;
    for (; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--') {
            i++;
            break;
        }
        if (arg === '--mode') mode = argv[++i];
        else if (arg === '--cwd') cwd = argv[++i];
        else if (arg === '--url') url = argv[++i];
        else throw new Error(`unexpected argument '${arg}'`);
    }
    const server = argv.slice(i);
    if (!['legacy', 'modern'].includes(mode)) throw new Error(`--mode must be legacy or modern (got ${mode})`);
    if (server.length === 0 && url === undefined) throw new Error('missing the server command after -- (or --url)');
    return { mode, cwd, url, command: server[0], args: server.slice(1) };
}

const LIST_CHANGED = ['notifications/tools/list_changed', 'notifications/resources/list_changed', 'notifications/prompts/list_changed'];

async function main() {
    const { mode, cwd, url, command, args } = parseArgs(process.argv.slice(2));
    const client = new Client({ name: 'cargo-mcp-dev-test', version: '0.0.0' }, { capabilities: {} });
    let toolsChanged = 0;
    let consumed = 0;
    const waiters = [];
    for (const method of LIST_CHANGED) {
        client.setNotificationHandler(method, () => {
            out({ event: 'list_changed', method });
            if (method === 'notifications/tools/list_changed') {
                toolsChanged++;
                for (const wake of waiters.splice(0)) wake();
            }
        });
    }
    client.setVersionNegotiation(
        mode === 'legacy' ? { mode: 'legacy' } : { mode: { pin: MODERN_VERSION }, probe: { timeoutMs: CONNECT_TIMEOUT_MS } }
    );
    const transport =
        url === undefined
            ? new StdioClientTransport({ command, args, cwd, env: { ...process.env }, stderr: 'inherit' })
            : new StreamableHTTPClientTransport(new URL(url));
    try {
        await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
        if (mode === 'modern') await client.listen({ toolsListChanged: true }, { timeout: REQUEST_TIMEOUT_MS });
    } catch (error) {
        out({ event: 'failed', error: String(error?.stack ?? error) });
        process.exit(1);
    }
    out({ event: 'connected', protocolVersion: client.getNegotiatedProtocolVersion(), capabilities: client.getServerCapabilities() });

    const opts = { timeout: REQUEST_TIMEOUT_MS };
    const lines = createInterface({ input: process.stdin });
    for await (const line of lines) {
        const [name, ...rest] = line.trim().split(' ');
        try {
            if (name === '') continue;
            if (name === 'list') {
                const { tools } = await client.listTools(undefined, opts);
                out({ command: name, ok: true, tools: tools.map((t) => t.name).sort() });
            } else if (name === 'call') {
                const [tool, ...json] = rest;
                const argsJson = json.join(' ');
                const result = await client.callTool({ name: tool, arguments: argsJson ? JSON.parse(argsJson) : {} }, opts);
                out({ command: name, ok: true, result });
            } else if (name === 'wait-list-changed') {
                const limit = Number(rest[0] ?? 120_000);
                const deadline = Date.now() + limit;
                while (toolsChanged <= consumed && Date.now() < deadline) {
                    await new Promise((resolve) => {
                        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
                        waiters.push(() => {
                            clearTimeout(timer);
                            resolve();
                        });
                    });
                }
                const ok = toolsChanged > consumed;
                consumed = toolsChanged;
                out({ command: name, ok, seen: toolsChanged });
            } else if (name === 'quit') {
                break;
            } else {
                out({ command: name, ok: false, error: { message: `unknown command '${name}'` } });
            }
        } catch (error) {
            out({ command: name, ok: false, error: { code: error?.code, message: String(error?.message ?? error) } });
        }
    }
    await client.close();
    process.exit(0);
}

await main();
