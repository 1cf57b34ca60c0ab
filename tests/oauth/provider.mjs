// One identity provider as `mcp_runtime::oauth::providers` expects it, played by
// oauth2-mock-server (pinned in package.json): its discovery document at the provider's own
// path naming the provider's issuer form, the mock's JWKS, and access tokens signed with its
// key carrying the claims that provider puts in them, plus the neighbouring mistakes each
// preset must refuse (a v1 token at a v2 issuer, another tenant, another audience, ...).
//
// Usage: node provider.mjs entra | auth0 | okta | keycloak | google
//        node provider.mjs dpop <the MCP server's URL>
//   (dpop: tokens bound to a client key by `cnf.jkt`, and DPoP proofs for that URL made with
//   `jose`, the JOSE library oauth2-mock-server signs with, pinned by package-lock.json)
// Listens on 127.0.0.1 (a free port) and prints one JSON line on stdout:
//   {"base": "http://127.0.0.1:PORT", "tokens": {"<case>": "<jwt>", ...}}
// then serves until stdin closes or the process is killed. Every token names sub "alice".

import { OAuth2Server } from 'oauth2-mock-server';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { createHash, randomUUID } from 'node:crypto';

const provider = process.argv[2];
const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
await server.start(0, '127.0.0.1');
const { port } = server.address();
const base = `http://127.0.0.1:${port}`;
server.issuer.url = base;

/** Serves an OpenID configuration naming `issuer` at `path`, with the mock's keys. */
function discovery(path, issuer) {
    server.service.addRoute('GET', path, (_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({
            issuer,
            jwks_uri: `${base}/jwks`,
            authorization_endpoint: `${base}/authorize`,
            token_endpoint: `${base}/token`,
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256']
        }));
    });
}

/** A token signed by the mock's key whose claims are exactly `claims` (and the times). */
function token(claims) {
    return server.issuer.buildToken({
        scopesOrTransform: (_header, payload) => {
            delete payload.iss;
            Object.assign(payload, { sub: 'alice' }, claims);
        }
    });
}

export const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
export const OTHER_TENANT = 'f8cdef31-a31e-4b4a-93e4-5f571e91255a';
export const CLIENT = '6e74172b-be56-4843-9ff4-e66a39bb12e3';
export const OTHER_CLIENT = '0f4b1e2c-5d63-4c7a-9e8f-1a2b3c4d5e6f';

const cases = {};
switch (provider) {
    case 'entra': {
        // One host plays both login.microsoftonline.com and sts.windows.net.
        const v2 = `${base}/${TENANT}/v2.0`;
        const v1 = `${base}/${TENANT}/`;
        discovery(`/${TENANT}/v2.0/.well-known/openid-configuration`, v2);
        discovery(`/${TENANT}/.well-known/openid-configuration`, v1);
        const v2Claims = { iss: v2, aud: CLIENT, tid: TENANT, ver: '2.0', scp: 'notes.read', azp: OTHER_CLIENT, oid: 'o-1' };
        const v1Claims = { iss: v1, aud: `api://${CLIENT}`, tid: TENANT, ver: '1.0', scp: 'notes.read', appid: OTHER_CLIENT };
        cases.v2 = await token(v2Claims);
        cases.v2_app_only = await token({ ...v2Claims, scp: undefined, roles: ['Notes.ReadWrite.All'] });
        cases.v2_other_tenant = await token({ ...v2Claims, iss: `${base}/${OTHER_TENANT}/v2.0`, tid: OTHER_TENANT });
        cases.v2_tenant_claim_mismatch = await token({ ...v2Claims, tid: OTHER_TENANT });
        cases.v2_wrong_audience = await token({ ...v2Claims, aud: OTHER_CLIENT });
        cases.v2_version_mismatch = await token({ ...v2Claims, ver: '1.0' });
        cases.v1 = await token(v1Claims);
        cases.v1_other_tenant = await token({ ...v1Claims, iss: `${base}/${OTHER_TENANT}/`, tid: OTHER_TENANT });
        cases.v1_wrong_audience = await token({ ...v1Claims, aud: `api://${OTHER_CLIENT}` });
        break;
    }
    case 'auth0': {
        // The issuer is the domain with a trailing slash, as Auth0 writes it.
        server.service.on('beforeWellKnownOpenIdConfiguration', (response) => {
            response.body.issuer = `${base}/`;
            response.body.jwks_uri = `${base}/jwks`;
        });
        const claims = {
            iss: `${base}/`,
            aud: ['https://notes.example.com/api', `${base}/userinfo`],
            scope: 'openid read:notes',
            permissions: ['read:notes', 'write:notes'],
            azp: CLIENT
        };
        cases.valid = await token(claims);
        cases.issuer_without_slash = await token({ ...claims, iss: base });
        cases.other_tenant = await token({ ...claims, iss: 'https://other.us.auth0.com/' });
        cases.wrong_audience = await token({ ...claims, aud: ['https://billing.example.com/api', `${base}/userinfo`] });
        break;
    }
    case 'okta': {
        const issuer = `${base}/oauth2/default`;
        discovery('/oauth2/default/.well-known/openid-configuration', issuer);
        const claims = { iss: issuer, aud: 'api://default', scp: ['notes.read', 'notes.write'], cid: CLIENT, uid: '00u1' };
        cases.valid = await token(claims);
        cases.org_server = await token({ ...claims, iss: base, aud: base });
        cases.other_server = await token({ ...claims, iss: `${base}/oauth2/aus8f2k` });
        cases.wrong_audience = await token({ ...claims, aud: 'api://billing' });
        break;
    }
    case 'keycloak': {
        const issuer = `${base}/realms/notes`;
        discovery('/realms/notes/.well-known/openid-configuration', issuer);
        const claims = {
            iss: issuer,
            aud: ['notes-mcp', 'account'],
            scope: 'openid notes:read',
            azp: 'notes-client',
            typ: 'Bearer',
            realm_access: { roles: ['offline_access'] }
        };
        cases.valid = await token(claims);
        cases.other_realm = await token({ ...claims, iss: `${base}/realms/master` });
        cases.without_audience_mapper = await token({ ...claims, aud: 'account' });
        break;
    }
    case 'google': {
        const claims = { iss: base, aud: `${CLIENT}.apps.googleusercontent.com`, azp: `${CLIENT}.apps.googleusercontent.com`, email: 'alice@example.com', hd: 'example.com' };
        cases.valid = await token(claims);
        cases.host_only_issuer = await token({ ...claims, iss: `127.0.0.1:${port}` });
        cases.wrong_audience = await token({ ...claims, aud: `${OTHER_CLIENT}.apps.googleusercontent.com` });
        cases.other_issuer = await token({ ...claims, iss: 'https://accounts.example.com' });
        cases.other_domain = await token({ ...claims, hd: 'example.org' });
        break;
    }
    case 'dpop': {
        // The issuer is the mock itself (its own discovery document at the root).
        const url = process.argv[3];
        const client = await generateKeyPair('ES256');
        const other = await generateKeyPair('ES256');
        const jwk = await exportJWK(client.publicKey);
        const otherJwk = await exportJWK(other.publicKey);
        const claims = { iss: base, aud: url, scope: 'notes:read' };
        const bound = await token({ ...claims, cnf: { jkt: await calculateJwkThumbprint(jwk) } });
        const ath = (t) => createHash('sha256').update(t).digest('base64url');
        const now = Math.floor(Date.now() / 1000);
        const proof = ({ htm = 'POST', htu = url, iat = now, forToken = bound, key = client.privateKey, pub = jwk } = {}) =>
            new SignJWT({ jti: randomUUID(), htm, htu, iat, ath: ath(forToken) })
                .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: pub })
                .sign(key);
        cases.bound = bound;
        cases.unbound = await token(claims);
        for (const n of [1, 2, 3]) cases[`proof_${n}`] = await proof();
        cases.proof_other_url = await proof({ htu: url.replace(/\/mcp$/, '/other') });
        cases.proof_other_method = await proof({ htm: 'GET' });
        cases.proof_other_key = await proof({ key: other.privateKey, pub: otherJwk });
        cases.proof_stale = await proof({ iat: now - 600 });
        cases.proof_other_token = await proof({ forToken: cases.unbound });
        break;
    }
    default:
        process.stderr.write(`unknown provider ${provider}\n`);
        process.exit(2);
}

process.stdout.write(JSON.stringify({ base, tokens: cases }) + '\n');

process.stdin.resume();
process.stdin.on('end', async () => {
    await server.stop();
    process.exit(0);
});
