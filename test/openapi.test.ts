import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateOpenApiDocument, serializeDocument } from '../src/openapi/openapi.document.ts';
import { createTestApp } from './helpers/app.ts';

describe('OpenAPI document', () => {
  it('the committed document matches the code (run `npm run openapi` after changing a schema)', async () => {
    const committed = fs.readFileSync(new URL('../openapi/public-api-v1.json', import.meta.url), 'utf8');
    expect(serializeDocument(await generateOpenApiDocument())).toBe(committed);
  });

  it('is OpenAPI 3.1, describes every public route, and is served at both addresses', async () => {
    const t = await createTestApp();
    const res = await t.request({ method: 'GET', url: '/public/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'http://herald.test/public/v1' }]);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/status', '/is-connected', '/workspaces', '/integrations', '/groups', '/integration-settings/{id}', '/integration-trigger/{id}',
        '/posts', '/posts/{id}', '/posts/{id}/status', '/posts/{id}/missing', '/posts/{id}/release-id', '/posts/group/{group}', '/notifications',
      ]),
    );
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    const mirror = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(mirror.json()).toEqual(doc);
  });

  it('serves Swagger UI, llms.txt and the developers page', async () => {
    const t = await createTestApp();
    const ui = await t.request({ method: 'GET', url: '/docs/' });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toMatch(/text\/html/);
    const llms = await t.request({ method: 'GET', url: '/llms.txt' });
    expect(llms.body).toMatch(/^# Herald/);
    expect(llms.body).toContain('http://herald.test/public/v1/openapi.json');
    const dev = await t.request({ method: 'GET', url: '/developers' });
    expect(dev.body).toContain('id="deprecation-policy"');
    expect(dev.body).toContain('Authorization: Bearer');
  });
});
