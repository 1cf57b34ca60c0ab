#!/usr/bin/env node
// Interop check: drive an MCP server over stdio or Streamable HTTP with the official
// TypeScript client (@modelcontextprotocol/client, pinned in ../package.json).
//
// Usage: node client.mjs --mode legacy|auto|modern -- <server command> [args...]   (stdio)
//        node client.mjs --mode legacy|auto|modern --url http://127.0.0.1:PORT/mcp  (HTTP)
//        add --calls N to finish with N more `add` calls, each checked (a load run; the
//        summary then carries "calls": N)
//        add --target everything when the server is (or fronts, flat) the reference
//        @modelcontextprotocol/server-everything (pinned in ../package.json): its tools
//        (echo, get-sum, a long-running operation with progress, sampling and elicitation
//        requests), resources and prompts are checked instead of echo-server's
//
//   legacy -> versionNegotiation.mode = 'legacy'  (plain `initialize` handshake)
//   auto   -> versionNegotiation.mode = 'auto'    (`server/discover` probe on a throwaway
//                                                  sibling process, fallback to `initialize`)
//   modern -> versionNegotiation.mode = { pin: '2026-07-28' } (probe must offer 2026-07-28,
//                                                  no fallback)
// Over HTTP the probe is an in-place POST (no sibling). With a legacy session (an
// Mcp-Session-Id after initialize) the script ends it with DELETE before closing.
//
// The client declares elicitation (form), sampling and roots and registers its own handlers
// for them (setRequestHandler), then calls echo-server's tools that ask: `ask_name` (twice:
// the handler accepts, then declines), `ask_model` and `list_roots`, and checks that each
// result carries what the handler answered. On a legacy connection the SDK runs the handlers
// for the server's requests (stdio lines, or events on the POST's stream answered by POSTs);
// on a 2026-07-28 one its input_required driver runs the same handlers and retries.
//
// On success prints one JSON line to stdout, e.g.
//   {"client":"ts","mode":"legacy","protocolVersion":"2025-11-25","tools":["add","echo",…],
//    …,"answered":{"elicitation":["s-1","s-2"],"sampling":["s-3"],"roots":["s-4"]},
//    "transport":"http","sessionId":true}
// and exits 0; `answered` lists the ids the handlers saw (the server's JSON-RPC ids on a legacy
// connection, the `inputRequests` keys on a modern one). Any failed check prints a message to
// stderr and exits 1.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

// INTEROP_TIME_SCALE (a number, default 1) stretches both limits for slow-starting servers
// (the Windows build under Wine).
const TIME_SCALE = Number(process.env.INTEROP_TIME_SCALE ?? 1) || 1;
const OVERALL_TIMEOUT_MS = 30_000 * TIME_SCALE;
const REQUEST_TIMEOUT_MS = 10_000 * TIME_SCALE;
const MODERN_VERSION = '2026-07-28';

/** What the client declares, so the SDK accepts the handlers and the server may ask. */
const CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } };
/** The roots the roots/list handler answers. */
const ROOTS = [
    { uri: 'file:///tmp/interop-ts/project', name: 'Project' },
    { uri: 'file:///tmp/interop-ts/notes' }
];

function usage(message) {
    process.stderr.write(`client.mjs: ${message}\n`);
    process.stderr.write('usage: node client.mjs --mode legacy|auto|modern (-- <server command> [args...] | --url URL)\n');
    process.exit(2);
}

function parseArgs(argv) {
    let mode;
    let url;
    let calls = 0;
    let target = 'echo-server';
    let i = 0;
    for (; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--') {
            i++;
            break;
        }
        if (arg === '--mode') {
            mode = argv[++i];
        } else if (arg.startsWith('--mode=')) {
            mode = arg.slice('--mode='.length);
        } else if (arg === '--url') {
            url = argv[++i];
        } else if (arg === '--target') {
            target = argv[++i];
            if (!['echo-server', 'everything'].includes(target)) usage(`--target must be echo-server or everything (got ${target})`);
        } else if (arg === '--calls') {
            calls = Number.parseInt(argv[++i], 10);
            if (!(calls >= 0)) usage('--calls takes a count');
        } else {
            usage(`unexpected argument '${arg}'`);
        }
    }
    const server = argv.slice(i);
    if (!['legacy', 'auto', 'modern'].includes(mode)) usage(`--mode must be legacy, auto or modern (got ${mode})`);
    if (url === undefined && server.length === 0) usage('missing --url or a server command after --');
    if (url !== undefined && server.length > 0) usage('give --url or a server command, not both');
    return { mode, url, calls, target, command: server[0], args: server.slice(1) };
}

class CheckError extends Error {}

function check(condition, message) {
    if (!condition) throw new CheckError(message);
}

function show(value) {
    return JSON.stringify(value);
}

/** Asserts `result` is a successful CallToolResult holding exactly one text item equal to `expected`. */
function expectSingleText(label, result, expected) {
    check(result && typeof result === 'object', `${label}: result is not an object: ${show(result)}`);
    check(result.isError !== true, `${label}: unexpected isError result: ${show(result)}`);
    check(Array.isArray(result.content), `${label}: result.content is not an array: ${show(result)}`);
    check(result.content.length === 1, `${label}: expected exactly one content item, got ${result.content.length}: ${show(result)}`);
    const [item] = result.content;
    check(item.type === 'text', `${label}: expected a text content item, got ${show(item)}`);
    check(item.text === expected, `${label}: expected text ${show(expected)}, got ${show(item.text)}`);
}

/**
 * Registers the client's own handlers for what a server may ask. Each records the id it was
 * called with; `elicitationAction` says whether the user "accepts" the form or "declines".
 */
function registerHandlers(client) {
    const handlers = { elicitationAction: 'accept', ids: { elicitation: [], sampling: [], roots: [] } };
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
        handlers.ids.elicitation.push(String(ctx.mcpReq.id));
        const { message, requestedSchema } = request.params;
        check(typeof message === 'string' && message.length > 0, `elicitation/create without a message: ${show(request.params)}`);
        check(requestedSchema?.properties?.name?.type === 'string', `elicitation/create: no string field "name" in ${show(requestedSchema)}`);
        if (handlers.elicitationAction === 'decline') return { action: 'decline' };
        return { action: 'accept', content: { name: 'Ada from ts' } };
    });
    client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
        handlers.ids.sampling.push(String(ctx.mcpReq.id));
        const last = request.params.messages.at(-1);
        check(last?.role === 'user' && last.content?.type === 'text', `sampling/createMessage: the last message is not the user's text: ${show(request.params)}`);
        return { role: 'assistant', model: 'interop-ts-model', stopReason: 'endTurn', content: { type: 'text', text: `ts model read: ${last.content.text}` } };
    });
    client.setRequestHandler('roots/list', async (_request, ctx) => {
        handlers.ids.roots.push(String(ctx.mcpReq.id));
        return { roots: ROOTS };
    });
    return handlers;
}

/** Calls the tools that ask the client, and checks each result carries the handler's answer. */
async function checkAsking(client, opts, handlers) {
    const call = (name, args) => client.callTool({ name, arguments: args }, opts);
    expectSingleText('ask_name (accepted)', await call('ask_name', {}), 'Hello, Ada from ts!');
    handlers.elicitationAction = 'decline';
    expectSingleText('ask_name (declined)', await call('ask_name', {}), 'You declined to say your name.');
    expectSingleText('ask_model', await call('ask_model', { question: 'What is 2 + 2?' }), 'ts model read: What is 2 + 2?');
    expectSingleText('list_roots', await call('list_roots', {}), ROOTS.map((r) => r.uri).join('\n'));
    const { ids } = handlers;
    check(ids.elicitation.length === 2 && ids.sampling.length === 1 && ids.roots.length === 1, `each handler runs once per ask, got ${show(ids)}`);
    return ids;
}

async function run(parsed, client, handlers) {
    const { mode, url, command, args } = parsed;
    const transport =
        url === undefined ? new StdioClientTransport({ command, args, stderr: 'inherit' }) : new StreamableHTTPClientTransport(new URL(url));
    const versionNegotiation =
        mode === 'legacy'
            ? { mode: 'legacy' }
            : { mode: mode === 'auto' ? 'auto' : { pin: MODERN_VERSION }, probe: { timeoutMs: REQUEST_TIMEOUT_MS } };
    client.setVersionNegotiation(versionNegotiation);
    const opts = { timeout: REQUEST_TIMEOUT_MS };

    await client.connect(transport, opts);
    const protocolVersion = client.getNegotiatedProtocolVersion();
    check(typeof protocolVersion === 'string' && protocolVersion.length > 0, `no negotiated protocol version after connect`);

    if (parsed.target === 'everything') {
        const summary = { client: 'ts', mode, protocolVersion, ...(await checkEverything(client, opts, handlers)) };
        if (url !== undefined && transport.sessionId !== undefined) await transport.terminateSession();
        return summary;
    }

    const { tools } = await client.listTools(undefined, opts);
    check(Array.isArray(tools), `tools/list: tools is not an array: ${show(tools)}`);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['echo', 'add', 'ask_name', 'ask_model', 'list_roots']) {
        const tool = byName.get(name);
        check(tool !== undefined, `tools/list: no tool named '${name}' (got ${show(tools.map((t) => t.name))})`);
        check(
            typeof tool.description === 'string' && tool.description.trim().length > 0,
            `tools/list: tool '${name}' has no description: ${show(tool)}`
        );
        check(
            tool.inputSchema && tool.inputSchema.type === 'object',
            `tools/list: tool '${name}' inputSchema.type is not "object": ${show(tool.inputSchema)}`
        );
    }

    expectSingleText('echo {text:"hello from ts"}', await client.callTool({ name: 'echo', arguments: { text: 'hello from ts' } }, opts), 'hello from ts');
    expectSingleText('add {a:2,b:3}', await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }, opts), '5');
    expectSingleText('add {a:1.5,b:2.25}', await client.callTool({ name: 'add', arguments: { a: 1.5, b: 2.25 } }, opts), '3.75');

    // A wrongly typed argument is a tool-level (isError) failure, not a JSON-RPC error.
    let bad;
    try {
        bad = await client.callTool({ name: 'add', arguments: { a: 'x', b: 3 } }, opts);
    } catch (error) {
        throw new CheckError(`add {a:"x",b:3}: expected an isError result, but the call failed: ${error?.stack ?? error}`);
    }
    check(bad && bad.isError === true, `add {a:"x",b:3}: expected isError: true, got ${show(bad)}`);

    const primitives = await checkPrimitives(client, opts);
    const answered = await checkAsking(client, opts, handlers);
    for (let n = 0; n < parsed.calls; n++) {
        expectSingleText(`add {a:${n},b:1}`, await client.callTool({ name: 'add', arguments: { a: n, b: 1 } }, opts), String(n + 1));
    }

    const summary = {
        client: 'ts',
        mode,
        protocolVersion,
        tools: [...byName.keys()].sort(),
        ...primitives,
        answered,
        transport: url === undefined ? 'stdio' : 'http'
    };
    if (parsed.calls > 0) summary.calls = parsed.calls;
    if (url !== undefined) {
        summary.sessionId = transport.sessionId !== undefined;
        // End a legacy session explicitly (DELETE; a stateless server's 405 is accepted).
        if (transport.sessionId !== undefined) await transport.terminateSession();
    }
    return summary;
}

/** The reference server-everything's tools, resources and prompts, with its progress and asks. */
async function checkEverything(client, opts, handlers) {
    const { tools } = await client.listTools(undefined, opts);
    const names = tools.map((t) => t.name).sort();
    for (const name of ['echo', 'get-sum', 'trigger-long-running-operation', 'trigger-sampling-request', 'trigger-elicitation-request']) {
        check(names.includes(name), `tools/list: no tool named '${name}' (got ${show(names)})`);
    }
    const call = (name, args, more = {}) => client.callTool({ name, arguments: args }, { ...opts, ...more });
    const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    expectSingleText('echo', await call('echo', { message: 'hello from ts' }), 'Echo: hello from ts');
    expectSingleText('get-sum', await call('get-sum', { a: 2, b: 3 }), 'The sum of 2 and 3 is 5.');

    const progress = [];
    const long = await call('trigger-long-running-operation', { duration: 0.3, steps: 3 }, { onprogress: (p) => progress.push(p.progress) });
    check(long.isError !== true, `trigger-long-running-operation: ${show(long)}`);
    check(progress.length === 3 && progress.every((p, i) => i === 0 || p > progress[i - 1]), `three increasing progress notifications, got ${show(progress)}`);

    const sampled = await call('trigger-sampling-request', { prompt: 'the gateway', maxTokens: 10 });
    check(sampled.isError !== true && textOf(sampled).includes('ts model read: Resource trigger-sampling-request context: the gateway'), `trigger-sampling-request: ${show(sampled)}`);
    const elicited = await call('trigger-elicitation-request', {});
    check(elicited.isError !== true && textOf(elicited).includes('- Name: Ada from ts'), `trigger-elicitation-request: ${show(elicited)}`);

    const { resources } = await client.listResources(undefined, opts);
    check(resources.length > 0, `resources/list is empty`);
    const first = await client.readResource({ uri: resources[0].uri }, opts);
    check(first.contents.length > 0 && first.contents[0].uri === resources[0].uri, `read ${resources[0].uri}: ${show(first)}`);
    const { prompts } = await client.listPrompts(undefined, opts);
    check(prompts.some((p) => p.name === 'simple-prompt'), `prompts/list: ${show(prompts)}`);
    const simple = await client.getPrompt({ name: 'simple-prompt' }, opts);
    check(simple.messages.length > 0, `prompts/get simple-prompt: ${show(simple)}`);
    const args = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon' } }, opts);
    check(show(args).includes('Lyon'), `prompts/get args-prompt: ${show(args)}`);

    return { target: 'everything', tools: names, progress, answered: handlers.ids, resources: resources.length, prompts: prompts.map((p) => p.name).sort() };
}

/** The resources, templates and prompts of echo-server, as the client's own API sees them. */
async function checkPrimitives(client, opts) {
    const caps = client.getServerCapabilities();
    check(caps?.resources && caps?.prompts && caps?.completions, `capabilities lack resources, prompts or completions: ${show(caps)}`);

    const { resources } = await client.listResources(undefined, opts);
    const uris = resources.map((r) => r.uri).sort();
    check(show(uris) === show(['echo://logo', 'echo://readme']), `resources/list: ${show(resources)}`);
    const { resourceTemplates } = await client.listResourceTemplates(undefined, opts);
    check(resourceTemplates.length === 1 && resourceTemplates[0].uriTemplate === 'echo://greeting/{name}', `resources/templates/list: ${show(resourceTemplates)}`);

    const readme = await client.readResource({ uri: 'echo://readme' }, opts);
    check(readme.contents.length === 1 && readme.contents[0].mimeType === 'text/markdown' && readme.contents[0].text.startsWith('# echo-server'), `read echo://readme: ${show(readme)}`);
    const logo = await client.readResource({ uri: 'echo://logo' }, opts);
    check(logo.contents[0].mimeType === 'image/png' && Buffer.from(logo.contents[0].blob, 'base64').subarray(1, 4).toString() === 'PNG', `read echo://logo: ${show(logo)}`);
    const hello = await client.readResource({ uri: 'echo://greeting/Ada' }, opts);
    check(hello.contents[0].uri === 'echo://greeting/Ada' && hello.contents[0].text === 'Hello, Ada!', `read echo://greeting/Ada: ${show(hello)}`);
    let missing;
    try {
        await client.readResource({ uri: 'echo://missing' }, opts);
    } catch (error) {
        missing = error;
    }
    check(missing !== undefined && [-32602, -32002].includes(missing.code), `read echo://missing: expected "Resource not found", got ${missing?.stack ?? 'a result'}`);

    const { prompts } = await client.listPrompts(undefined, opts);
    check(show(prompts.map((p) => p.name).sort()) === show(['greet', 'logo', 'readme']), `prompts/list: ${show(prompts)}`);
    check(prompts.every((p) => typeof p.description === 'string' && p.description.length > 0), `prompts/list: a prompt without description: ${show(prompts)}`);
    const greet = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada', style: 'formal' } }, opts);
    check(greet.messages.length === 1 && greet.messages[0].role === 'user' && greet.messages[0].content.text === 'Greet Ada in a formal way.', `prompts/get greet: ${show(greet)}`);
    const embedded = await client.getPrompt({ name: 'readme' }, opts);
    const resource = embedded.messages.find((m) => m.content.type === 'resource');
    check(resource && resource.content.resource.uri === 'echo://readme' && resource.content.resource.text.startsWith('# echo-server'), `prompts/get readme: ${show(embedded)}`);
    const image = await client.getPrompt({ name: 'logo' }, opts);
    check(image.messages[0].content.type === 'image' && image.messages[0].content.mimeType === 'image/png', `prompts/get logo: ${show(image)}`);

    const completion = await client.complete({ ref: { type: 'ref/resource', uri: 'echo://greeting/{name}' }, argument: { name: 'name', value: 'a' } }, opts);
    check(show(completion.completion.values) === show(['Ada', 'Alan']), `completion/complete: ${show(completion)}`);

    return { resources: uris, prompts: prompts.map((p) => p.name).sort(), completed: completion.completion.values };
}

async function main() {
    const parsed = parseArgs(process.argv.slice(2));
    // A load run gets time for its calls too.
    const overallTimeoutMs = OVERALL_TIMEOUT_MS + parsed.calls * 200;
    const client = new Client({ name: 'mcp-toolkit-interop-ts', version: '0.0.0' }, { capabilities: CAPABILITIES });
    const handlers = registerHandlers(client);
    let timedOut = false;
    const watchdog = setTimeout(() => {
        timedOut = true;
        process.stderr.write(`client.mjs: timed out after ${overallTimeoutMs} ms\n`);
        // Best effort: let the transport end the server, then exit regardless.
        client.close().catch(() => {});
        setTimeout(() => process.exit(1), 5_000).unref();
    }, overallTimeoutMs);

    let code = 0;
    let summary;
    try {
        summary = await run(parsed, client, handlers);
    } catch (error) {
        code = 1;
        if (!timedOut) {
            const text = error instanceof CheckError ? error.message : `unexpected error: ${error?.stack ?? error}`;
            process.stderr.write(`client.mjs [mode ${parsed.mode}]: ${text}\n`);
        }
    } finally {
        // Always close: that ends stdin and, failing that, signals the server subprocess.
        try {
            await client.close();
        } catch (error) {
            process.stderr.write(`client.mjs: closing the client failed: ${error?.stack ?? error}\n`);
            code = 1;
        }
        clearTimeout(watchdog);
    }
    if (code === 0 && !timedOut) process.stdout.write(`${JSON.stringify(summary)}\n`);
    process.exit(timedOut ? 1 : code);
}

await main();
