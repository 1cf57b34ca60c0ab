#!/usr/bin/env node
// OAuth interop: the official TypeScript client (@modelcontextprotocol/client, pinned in
// ../package.json) logs in to an MCP server that answers 401, by its own OAuth flow, and uses
// it. The server is `notes-server --oauth-issuer ISSUER --oauth-audience URL --oauth-scope
// notes:read`; the issuer is tests/oauth/authorization-server.mjs.
//
// Usage: node oauth-client.mjs --url http://127.0.0.1:PORT/mcp --issuer http://127.0.0.1:PORT2
//
// What it does, each step checked:
//   1. connects: the server answers 401; the SDK reads the protected-resource metadata, the
//      authorization server's metadata, registers dynamically, and sends the user to the
//      authorization URL (PKCE S256, `resource` = the server's URL, the scopes the server
//      publishes). "The user" here is fetch: the authorization server redirects back with a
//      code at once; the script hands the redirect to `finishAuth` and connects again.
//   2. calls `whoami` (the token's subject is "alice") and `list_notes` (scope notes:read);
//   3. calls `add_note`, which needs notes:write: the server answers 403 insufficient_scope,
//      the SDK asks for the union of scopes (step-up), and the call succeeds once the new
//      authorization is finished;
//   4. gets a token for another resource (client credentials with `resource` naming another
//      server) and sends it to the server: 401 invalid_token, with the metadata URL.
// Prints one JSON summary line on stdout and exits 0; a failed check exits 1.

import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

const REDIRECT_URL = 'http://127.0.0.1:1/oauth/callback';

function fail(message) {
    process.stderr.write(`oauth-client.mjs: ${message}\n`);
    process.exit(1);
}

function check(condition, message) {
    if (!condition) fail(message);
}

const argv = process.argv.slice(2);
const arg = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
};
const url = arg('--url');
const issuer = arg('--issuer');
if (!url || !issuer) fail('usage: node oauth-client.mjs --url URL --issuer ISSUER');

/** An OAuth client provider that keeps everything in memory and "consents" by fetching. */
class Provider {
    constructor() {
        this.client = undefined;
        this.stored = undefined;
        this.verifier = undefined;
        this.authorizations = [];
        this.callback = undefined;
        this.registrations = 0;
    }
    get redirectUrl() {
        return REDIRECT_URL;
    }
    get clientMetadata() {
        return {
            client_name: 'oauth interop (TypeScript SDK)',
            redirect_uris: [REDIRECT_URL],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none'
        };
    }
    clientInformation() {
        return this.client;
    }
    saveClientInformation(info) {
        this.registrations += 1;
        this.client = info;
    }
    tokens() {
        return this.stored;
    }
    saveTokens(tokens) {
        this.stored = tokens;
    }
    async redirectToAuthorization(authorizationUrl) {
        this.authorizations.push(authorizationUrl);
        const response = await fetch(authorizationUrl, { redirect: 'manual' });
        const location = response.headers.get('location');
        check(response.status === 302 && location, `the authorization endpoint answered ${response.status} without a redirect`);
        const back = new URL(location);
        check(back.searchParams.get('code'), `the authorization server redirected back without a code: ${location}`);
        this.callback = back.searchParams;
    }
    saveDiscoveryState(state) {
        this.discovery = state;
    }
    discoveryState() {
        return this.discovery;
    }
    saveCodeVerifier(verifier) {
        this.verifier = verifier;
    }
    codeVerifier() {
        return this.verifier;
    }
}

const provider = new Provider();
const newClient = () => new Client({ name: 'oauth-interop-ts', version: '1.0.0' });
const newTransport = () => new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });

let client = newClient();
let transport = newTransport();
let firstConnectRefused = false;
try {
    await client.connect(transport);
} catch (error) {
    check(error instanceof UnauthorizedError, `connect failed with something other than UnauthorizedError: ${error}`);
    firstConnectRefused = true;
    check(provider.callback, 'the SDK did not send the user to the authorization server');
    await transport.finishAuth(provider.callback);
    client = newClient();
    transport = newTransport();
    await client.connect(transport);
}
check(firstConnectRefused, 'the server let the client in without a token');
check(provider.registrations === 1, `expected one dynamic registration, got ${provider.registrations}`);

const first = new URL(provider.authorizations[0]);
const firstParams = Object.fromEntries(first.searchParams);
check(firstParams.code_challenge_method === 'S256', `no PKCE S256: ${first}`);
check(firstParams.resource === url, `the authorization request's resource is ${firstParams.resource}, not ${url}`);

const text = (result) => result.content?.[0]?.text;
const whoami = text(await client.callTool({ name: 'whoami', arguments: {} }));
check(typeof whoami === 'string' && whoami.startsWith('alice'), `whoami answered ${whoami}`);
const listed = text(await client.callTool({ name: 'list_notes', arguments: {} }));
check(listed === 'no notes yet', `list_notes answered ${listed}`);

// Step-up: add_note needs notes:write, which the first token lacks.
let steppedUp = false;
let added;
try {
    added = await client.callTool({ name: 'add_note', arguments: { text: 'from ts' } });
} catch (error) {
    check(error instanceof UnauthorizedError, `add_note failed with something other than UnauthorizedError: ${error}`);
    steppedUp = true;
    check(provider.authorizations.length === 2, `expected a second authorization, got ${provider.authorizations.length}`);
    await transport.finishAuth(provider.callback);
    added = await client.callTool({ name: 'add_note', arguments: { text: 'from ts' } });
}
check(steppedUp, 'add_note succeeded without notes:write');
check(text(added) === 'note 1 added', `add_note answered ${JSON.stringify(added)}`);
const secondScope = new URL(provider.authorizations[1]).searchParams.get('scope') ?? '';
check(secondScope.split(' ').includes('notes:write'), `the step-up asked for ${secondScope}`);
const afterStepUp = text(await client.callTool({ name: 'list_notes', arguments: {} }));
check(afterStepUp === 'alice: from ts', `list_notes after the step-up answered ${afterStepUp}`);
await client.close();

// A token the same authorization server issued for another resource.
const tokenResponse = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: provider.client.client_id,
        scope: 'notes:read notes:write',
        resource: 'https://other.example/mcp'
    })
});
check(tokenResponse.ok, `the token endpoint answered ${tokenResponse.status}`);
const foreign = (await tokenResponse.json()).access_token;
const refused = await fetch(url, {
    method: 'POST',
    headers: {
        authorization: `Bearer ${foreign}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream'
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
});
const challenge = refused.headers.get('www-authenticate') ?? '';
check(refused.status === 401, `a token for another resource was answered ${refused.status}`);
check(challenge.includes('invalid_token') && challenge.includes('resource_metadata='), `challenge: ${challenge}`);

process.stdout.write(JSON.stringify({
    client: 'ts',
    registered: provider.registrations,
    authorizations: provider.authorizations.length,
    resource: firstParams.resource,
    firstScope: firstParams.scope ?? null,
    stepUpScope: secondScope,
    whoami,
    foreignStatus: refused.status
}) + '\n');
process.exit(0);
