import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import * as client from 'openid-client';
import { buildConnector } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib.ts';
import { createOutboundClient } from '../../src/net/outbound.ts';
import { resolver } from '../helpers/outbound.ts';
import { authorize, codeFlow, CookieJar, createPerson, startOAuthServer, type OAuthServer } from './helpers.ts';

/**
 * Client ID Metadata Documents: the app's client_id is an https URL serving its metadata. The
 * app's host is a real TLS server on loopback (a certificate made here for client.example.test),
 * reached through Herald's guarded outbound client with a resolver that maps the name to 127.0.0.1.
 */
let s: OAuthServer;
let server: https.Server;
let base: string;
const documents = new Map<string, unknown>();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-cimd-'));

beforeAll(async () => {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=client.example.test',
      '-addext',
      'subjectAltName=DNS:client.example.test',
    ],
    { stdio: 'ignore' },
  );
  const cert = fs.readFileSync(path.join(dir, 'cert.pem'));
  const port = await freePort();
  server = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert }, (req, res) => {
    const document = documents.get(req.url ?? '');
    if (!document) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  base = `https://client.example.test:${port}`;
  const outbound = createOutboundClient({
    allowLoopback: true,
    lookup: resolver({ 'client.example.test': ['127.0.0.1'] }).lookup,
    connector: buildConnector({ ca: cert, timeout: 2000 }),
  });
  s = await startOAuthServer({}, { outbound });
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const config = (clientId: string) =>
  new client.Configuration(
    { issuer: s.origin, authorization_endpoint: `${s.origin}/oauth/authorize`, token_endpoint: `${s.origin}/oauth/token` },
    clientId,
    undefined,
    client.None(),
  );

describe('Client ID Metadata Documents', () => {
  it("an https client_id is fetched as the app's metadata and works without registration", async () => {
    const meta = (await (await fetch(`${s.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.client_id_metadata_document_supported).toBe(true);
    const clientId = `${base}/oauth-client.json`;
    documents.set('/oauth-client.json', {
      client_id: clientId,
      client_name: 'Assistant',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      token_endpoint_auth_method: 'none',
    });
    const person = await createPerson(s.t);
    const app = config(clientId);
    client.allowInsecureRequests(app);
    const tokens = await codeFlow(app, new CookieJar(person.sessionToken), {
      scope: 'mcp:read',
      resource: `${s.origin}/mcp-oauth`,
      workspaceId: person.workspaceId,
    });
    expect(tokens.access_token).toMatch(/^svco_/);
    expect((await s.t.services.oauth.allowedApps(person.userId))[0]).toMatchObject({ clientId, clientName: 'Assistant' });
  });

  it("the consent page shows the document's address as the app id, never as one of Herald's own apps", async () => {
    const clientId = `${base}/named.json`;
    documents.set('/named.json', {
      client_id: clientId,
      client_name: 'Command line',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      token_endpoint_auth_method: 'none',
    });
    const person = await createPerson(s.t);
    const app = config(clientId);
    client.allowInsecureRequests(app);
    const { consentHtml } = await authorize(app, new CookieJar(person.sessionToken), {
      scope: 'posts:read',
      workspaceId: person.workspaceId,
      decision: 'deny',
    });
    expect(consentHtml).toContain(`Not one of Herald’s own apps: app id <code>${clientId}</code>, described at that address.`);
    expect(consentHtml).not.toContain('id="first-party"');
  });

  it('refuses a document that names another client, asks for a secret, or redirects to plain http elsewhere', async () => {
    documents.set('/other.json', { client_id: `${base}/elsewhere.json`, redirect_uris: ['http://127.0.0.1:9/callback'] });
    documents.set('/secret.json', {
      client_id: `${base}/secret.json`,
      redirect_uris: ['http://127.0.0.1:9/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    documents.set('/http.json', { client_id: `${base}/http.json`, redirect_uris: ['http://app.example.test/callback'] });
    documents.set('/reserved.json', {
      client_id: `${base}/reserved.json`,
      client_name: 'Herald command line',
      redirect_uris: ['http://127.0.0.1:9/callback'],
    });
    for (const name of ['/other.json', '/secret.json', '/http.json', '/reserved.json', '/missing.json']) {
      const url = new URL(`${s.origin}/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: `${base}${name}`,
        response_type: 'code',
        redirect_uri: 'http://127.0.0.1:9/callback',
        scope: 'posts:read',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }).toString();
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status, name).toBe(400);
      expect(await res.text(), name).toContain('invalid_client');
    }
  });
});
