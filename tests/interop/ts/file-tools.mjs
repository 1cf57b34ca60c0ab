#!/usr/bin/env node
// Interop check for the file tools: the official TypeScript client
// (@modelcontextprotocol/client, pinned in ../package.json) lists and calls file tools on a
// filesystem server over stdio. The client validates each result's structuredContent against
// the tool's outputSchema from tools/list, so a shape mismatch fails the call.
//
// Usage: node file-tools.mjs --mode legacy|auto -- <server command> [args...] <DIR>
//   The server must serve DIR, which must hold a.txt containing "one\ntwo\nthree\n" and
//   img.png; the script writes DIR/from-ts.txt.
//
// On success prints one JSON line to stdout:
//   {"client":"ts","mode":"legacy","tools":[...],"results":{"<call>":"<text>",...}}
// and exits 0. Any failed check prints a message to stderr and exits 1.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const OVERALL_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;

class CheckError extends Error {}

function check(condition, message) {
    if (!condition) throw new CheckError(message);
}

function usage(message) {
    process.stderr.write(`file-tools.mjs: ${message}\n`);
    process.stderr.write('usage: node file-tools.mjs --mode legacy|auto -- <server command> [args...]\n');
    process.exit(2);
}

function parseArgs(argv) {
    const sep = argv.indexOf('--');
    if (sep < 0 || sep + 1 >= argv.length) usage('missing the server command after --');
    const flags = argv.slice(0, sep);
    let mode;
    for (let i = 0; i < flags.length; i++) {
        if (flags[i] === '--mode') mode = flags[++i];
        else usage(`unexpected argument '${flags[i]}'`);
    }
    if (!['legacy', 'auto'].includes(mode)) usage(`--mode must be legacy or auto (got ${mode})`);
    const server = argv.slice(sep + 1);
    return { mode, command: server[0], args: server.slice(1) };
}

/** The text of a successful result in the reference shape: one text block mirrored in structuredContent.content. */
function text(label, result) {
    check(result && result.isError !== true, `${label}: unexpected error result: ${JSON.stringify(result)}`);
    const [item] = result.content ?? [];
    check(item && item.type === 'text', `${label}: no text block: ${JSON.stringify(result)}`);
    check(
        result.structuredContent && result.structuredContent.content === item.text,
        `${label}: structuredContent.content differs from the text: ${JSON.stringify(result)}`
    );
    return item.text;
}

async function run({ mode, command, args }, client) {
    const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
    client.setVersionNegotiation(
        mode === 'legacy' ? { mode: 'legacy' } : { mode: 'auto', probe: { timeoutMs: REQUEST_TIMEOUT_MS } }
    );
    const opts = { timeout: REQUEST_TIMEOUT_MS };
    await client.connect(transport, opts);

    const { tools } = await client.listTools(undefined, opts);
    const names = tools.map((t) => t.name).sort();
    for (const tool of tools) {
        check(tool.inputSchema?.type === 'object', `${tool.name}: inputSchema.type is not "object"`);
        check(tool.outputSchema?.type === 'object', `${tool.name}: no object outputSchema`);
    }

    const call = (name, args) => client.callTool({ name, arguments: args }, opts);
    const results = {};
    results.write = text('write_file', await call('write_file', { path: 'from-ts.txt', content: 'written by ts\n' }));
    results.read = text('read_text_file', await call('read_text_file', { path: 'from-ts.txt' }));
    results.head = text('read_text_file head', await call('read_text_file', { path: 'a.txt', head: 2 }));
    results.list = text('list_directory', await call('list_directory', { path: '.' }));
    results.edit = text(
        'edit_file',
        await call('edit_file', { path: 'from-ts.txt', edits: [{ oldText: 'ts', newText: 'TS' }], dryRun: true })
    );
    const media = await call('read_media_file', { path: 'img.png' });
    check(media.isError !== true && media.content?.[0]?.type === 'image', `read_media_file: ${JSON.stringify(media)}`);
    check(media.structuredContent?.content?.[0]?.mimeType === 'image/png', `read_media_file: ${JSON.stringify(media)}`);
    results.media = media.content[0].mimeType;

    // A failure inside a tool is an isError result, not a thrown JSON-RPC error.
    const denied = await call('read_text_file', { path: '/etc/passwd' });
    check(denied.isError === true, `read_text_file /etc/passwd: expected isError, got ${JSON.stringify(denied)}`);
    results.denied = denied.content[0].text;

    return { client: 'ts', mode, tools: names, results };
}

async function main() {
    const parsed = parseArgs(process.argv.slice(2));
    const client = new Client({ name: 'mcp-toolkit-interop-ts-files', version: '0.0.0' });
    const watchdog = setTimeout(() => {
        process.stderr.write(`file-tools.mjs: timed out after ${OVERALL_TIMEOUT_MS} ms\n`);
        client.close().catch(() => {});
        setTimeout(() => process.exit(1), 5_000).unref();
    }, OVERALL_TIMEOUT_MS);
    let code = 0;
    let summary;
    try {
        summary = await run(parsed, client);
    } catch (error) {
        code = 1;
        const text = error instanceof CheckError ? error.message : `unexpected error: ${error?.stack ?? error}`;
        process.stderr.write(`file-tools.mjs [mode ${parsed.mode}]: ${text}\n`);
    } finally {
        try {
            await client.close();
        } catch (error) {
            process.stderr.write(`file-tools.mjs: closing the client failed: ${error?.stack ?? error}\n`);
            code = 1;
        }
        clearTimeout(watchdog);
    }
    if (code === 0) process.stdout.write(`${JSON.stringify(summary)}\n`);
    process.exit(code);
}

await main();
