// The OAuth 2.1 authorization server the OAuth tests log in at: oauth2-mock-server (pinned in
// package.json), configured the way an authorization server for MCP is deployed:
//   - OpenID discovery at /.well-known/openid-configuration (no RFC 8414 document, so
//     clients and servers exercise their fallback), plus `registration_endpoint` and the
//     scopes it knows;
//   - dynamic client registration (RFC 7591) at POST /register, public clients
//     (`token_endpoint_auth_method: none`) and clients with a secret;
//   - authorization codes with PKCE (S256), the user consenting at once (the authorize
//     endpoint redirects back with a code, no login page);
//   - access tokens as RS256 JWTs whose `aud` is the `resource` parameter (RFC 8707) of the
//     authorization or token request, whose `scope` is what the client asked for, and whose
//     `sub` is "alice" (authorization code) or the client id (client credentials);
//   - refresh tokens that keep the grant's resource and scopes;
//   - introspection (RFC 7662) answering for the tokens it issued;
//   - with the argument `dpop`, DPoP (RFC 9449): `dpop_signing_alg_values_supported` in its
//     metadata, and a token request carrying a valid proof (jose verifies it with the key
//     embedded in it; `htm`, `htu`, `iat` and `jti` checked) gets a token bound to that key
//     (`cnf.jkt`, `token_type: DPoP`), and so does its refresh token: refreshing it needs a
//     proof by the same key. With `dpop-nonce` too, it asks for a nonce first
//     (`use_dpop_nonce` and a `DPoP-Nonce` header, RFC 9449 §8), as Okta does; with
//     `dpop-only`, a token request without a proof is refused.
//
// Usage: node authorization-server.mjs [dpop [dpop-nonce] [dpop-only]]
// Listens on 127.0.0.1 (a free port), prints {"issuer":"http://127.0.0.1:PORT"} on stdout,
// and serves until stdin closes or the process is killed.

import { OAuth2Server } from 'oauth2-mock-server';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify } from 'jose';
import { AssertionError } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const SCOPES = ['notes:read', 'notes:write'];
const DPOP = process.argv.includes('dpop');
const DPOP_NONCE = DPOP && process.argv.includes('dpop-nonce') ? randomUUID() : undefined;
const DPOP_ONLY = DPOP && process.argv.includes('dpop-only');
const DPOP_ALGS = ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'];

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
const service = server.service;

/** code -> {scope, resource, clientId}, from the authorization request. */
const grants = new Map();
/** refresh token -> {scope, resource, sub}. */
const refreshes = new Map();
/** access token -> its claims, for introspection. */
const issued = new Map();
/** Requests whose access token was signed already (the id token comes second). */
const signed = new WeakSet();
/** Registered clients by id. */
const clients = new Map();

service.on('beforeWellKnownOpenIdConfiguration', (response) => {
    const issuer = server.issuer.url;
    response.body.registration_endpoint = `${issuer}/register`;
    response.body.scopes_supported = SCOPES;
    response.body.grant_types_supported = [
        ...response.body.grant_types_supported,
        'refresh_token'
    ];
    response.body.token_endpoint_auth_methods_supported = ['none', 'client_secret_basic', 'client_secret_post'];
    response.body.code_challenge_methods_supported = ['S256'];
    if (DPOP) response.body.dpop_signing_alg_values_supported = DPOP_ALGS;
});

/** Proof `jti`s seen at the token endpoint. */
const spentProofs = new Set();

/**
 * Checks the DPoP proof of a token request, if there is one (RFC 9449 §4.3): the key's
 * thumbprint, or an OAuth error for the answer.
 */
async function checkProof(req) {
    const proof = req.headers['dpop'];
    const refuse = (error, description) => ({ error, description });
    if (DPOP_ONLY && proof === undefined) return refuse('invalid_dpop_proof', 'a DPoP proof is required');
    if (!DPOP || proof === undefined) return {};
    let verified;
    try {
        verified = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: DPOP_ALGS });
    } catch (e) {
        return refuse('invalid_dpop_proof', `the proof does not verify: ${e.message}`);
    }
    const { payload, protectedHeader } = verified;
    const url = `${server.issuer.url}${req.url.split('?')[0]}`;
    const now = Math.floor(Date.now() / 1000);
    if (payload.htm !== req.method) return refuse('invalid_dpop_proof', 'htm is not this method');
    if (payload.htu?.split(/[?#]/)[0] !== url) return refuse('invalid_dpop_proof', `htu is not ${url}`);
    if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > 60) {
        return refuse('invalid_dpop_proof', 'iat is not within 60 s');
    }
    if (typeof payload.jti !== 'string' || spentProofs.has(payload.jti)) {
        return refuse('invalid_dpop_proof', 'jti is missing or was used before');
    }
    if (DPOP_NONCE !== undefined && payload.nonce !== DPOP_NONCE) {
        return refuse('use_dpop_nonce', 'the authorization server requires a nonce in the DPoP proof');
    }
    spentProofs.add(payload.jti);
    return { jkt: await calculateJwkThumbprint(protectedHeader.jwk) };
}

service.addRoute('POST', '/register', (req, res) => {
    const metadata = req.body ?? {};
    const redirects = metadata.redirect_uris;
    if (!Array.isArray(redirects) || redirects.length === 0) {
        res.statusCode = 400;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ error: 'invalid_redirect_uri', error_description: 'redirect_uris is required' }));
        return;
    }
    const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
    const client = {
        ...metadata,
        client_id: randomUUID(),
        client_id_issued_at: Math.floor(Date.now() / 1000),
        token_endpoint_auth_method: method
    };
    if (method !== 'none') client.client_secret = randomUUID();
    clients.set(client.client_id, client);
    res.statusCode = 201;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(client));
});

service.on('beforeAuthorizeRedirect', ({ url }, req) => {
    const code = url.searchParams.get('code');
    if (!code) return;
    const clientId = req.query.client_id;
    const client = clients.get(clientId);
    if (!client || !client.redirect_uris.includes(req.query.redirect_uri)) {
        url.searchParams.delete('code');
        url.searchParams.set('error', 'unauthorized_client');
        return;
    }
    if (!req.query.code_challenge) {
        url.searchParams.delete('code');
        url.searchParams.set('error', 'invalid_request');
        url.searchParams.set('error_description', 'PKCE is required');
        return;
    }
    grants.set(code, { scope: req.query.scope, resource: req.query.resource, clientId });
    url.searchParams.set('iss', server.issuer.url);
});

/** The client id of an HTTP Basic client authentication (RFC 6749 §2.3.1), if any. */
function basicClientId(req) {
    const header = req.headers?.authorization ?? '';
    if (!header.startsWith('Basic ')) return undefined;
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? undefined : decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
}

service.on('beforeTokenSigning', (token, req) => {
    if (signed.has(req)) return; // the id token
    signed.add(req);
    const body = req.body;
    let grant;
    if (body.grant_type === 'authorization_code') {
        grant = grants.get(body.code) ?? {};
        grant = { ...grant, sub: 'alice' };
    } else if (body.grant_type === 'refresh_token') {
        grant = refreshes.get(body.refresh_token) ?? {};
    } else {
        grant = { sub: body.client_id ?? basicClientId(req) ?? 'client', scope: body.scope, resource: body.resource };
    }
    const resource = body.resource ?? grant.resource;
    const scope = body.scope ?? grant.scope;
    // A refresh token bound to a key is refreshed only with a proof by that key (§5).
    if (grant.jkt !== undefined && grant.jkt !== req.dpopJkt) {
        throw new AssertionError({ message: 'invalid_grant: the refresh token is bound to another DPoP key' });
    }
    if (req.dpopJkt !== undefined) token.payload.cnf = { jkt: req.dpopJkt };
    token.payload.sub = grant.sub;
    if (resource) token.payload.aud = resource;
    else delete token.payload.aud;
    if (scope) token.payload.scope = scope;
    else delete token.payload.scope;
    req.grant = { sub: grant.sub, scope, resource, jkt: req.dpopJkt };
});

service.on('beforeResponse', (response, req) => {
    const grant = req.grant ?? {};
    if (req.dpopJkt !== undefined && response.body.access_token) response.body.token_type = 'DPoP';
    if (response.body.scope === 'dummy' || response.body.scope === undefined) {
        if (grant.scope) response.body.scope = grant.scope;
        else delete response.body.scope;
    }
    if (response.body.refresh_token) refreshes.set(response.body.refresh_token, grant);
    if (response.body.access_token) {
        issued.set(response.body.access_token, {
            sub: grant.sub,
            scope: grant.scope,
            aud: grant.resource,
            exp: Math.floor(Date.now() / 1000) + (response.body.expires_in ?? 3600)
        });
    }
});

service.on('beforeIntrospect', (response, req) => {
    const known = issued.get(req.body?.token);
    response.body = known
        ? { active: true, iss: server.issuer.url, ...known }
        : { active: false };
});

// The mock's own handler behind one that checks DPoP proofs first: the check is
// asynchronous, and the mock's hooks are not awaited.
const http = createServer(async (req, res) => {
    if (req.method === 'POST' && req.url.split('?')[0] === '/token') {
        const checked = await checkProof(req);
        if (checked.error) {
            res.statusCode = 400;
            res.setHeader('Content-Type', 'application/json');
            if (checked.error === 'use_dpop_nonce') res.setHeader('DPoP-Nonce', DPOP_NONCE);
            res.end(JSON.stringify({ error: checked.error, error_description: checked.description }));
            return;
        }
        req.dpopJkt = checked.jkt;
    }
    service.requestHandler(req, res);
});
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
const { port } = http.address();
server.issuer.url = `http://127.0.0.1:${port}`;
process.stdout.write(JSON.stringify({ issuer: server.issuer.url }) + '\n');

process.stdin.resume();
process.stdin.on('end', () => {
    http.close();
    process.exit(0);
});
