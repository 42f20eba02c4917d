import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generateOpenApiDocument } from '../src/openapi/openapi.document.ts';
import { createTestApp } from './helpers/app.ts';
import { processBudget } from './helpers/process.ts';

const run = promisify(execFile);

describe('OpenAPI document', () => {
  it(
    'the committed document matches the code (run `npm run openapi` after changing a schema)',
    async () => {
      const committed = fs.readFileSync(new URL('../openapi/public-api-v1.json', import.meta.url), 'utf8');
      // Made in a process of its own, as `npm run openapi` makes it: the suite's shared module cache
      // has been seen to change a few schemas' descriptions after some files ran (not yet traced).
      const made = await run(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          "const m = await import('./src/openapi/openapi.document.ts'); process.stdout.write(m.serializeDocument(await m.generateOpenApiDocument()));",
        ],
        { cwd: fileURLToPath(new URL('..', import.meta.url)), maxBuffer: 64 * 1024 * 1024 },
      );
      expect(made.stdout).toBe(committed);
    },
    processBudget(1),
  );

  it('documents POST /imports with both bodies: JSON rows, and a CSV file as multipart/form-data with its fields', async () => {
    const document = (await generateOpenApiDocument()) as {
      paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Record<string, unknown> }> } }>>;
    };
    const content = document.paths['/imports']!.post!.requestBody.content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'multipart/form-data']);
    expect(content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/CreateImportInput' });
    const form = content['multipart/form-data']!.schema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(form.required).toEqual(['file']);
    expect(form.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(form.properties.dryRun).toMatchObject({ enum: ['true', 'false'] });
    expect(form.properties.partial).toMatchObject({ enum: ['true', 'false'] });
  });

  it('gives every integer its real bounds: none is documented as the ±2^53 range of safe integers', async () => {
    const document = await generateOpenApiDocument();
    const unbounded: string[] = [];
    const integers: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${path}/${i}`));
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema.type === 'integer') {
        integers.push(path);
        if (Math.abs(Number(schema.minimum)) === Number.MAX_SAFE_INTEGER || Math.abs(Number(schema.maximum)) === Number.MAX_SAFE_INTEGER)
          unbounded.push(path);
        if (schema.minimum === undefined) unbounded.push(`${path} (no minimum)`);
      }
      for (const [key, value] of Object.entries(schema)) walk(value, `${path}/${key}`);
    };
    walk(document, '');
    expect(integers.length).toBeGreaterThan(10);
    expect(unbounded).toEqual([]);
    const schemas = (document as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } })
      .components.schemas;
    expect(schemas.MediaPage!.properties.total).toEqual({ type: 'integer', minimum: 0, description: 'Number of files in the library.' });
    expect(schemas.ApiError!.properties.statusCode).toMatchObject({ minimum: 400, maximum: 599 });
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
        '/status',
        '/is-connected',
        '/workspaces',
        '/integrations',
        '/groups',
        '/integration-settings/{id}',
        '/integration-trigger/{id}',
        '/posts',
        '/posts/{id}',
        '/posts/{id}/status',
        '/posts/{id}/missing',
        '/posts/{id}/release-id',
        '/posts/group/{group}',
        '/notifications',
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
    // Herald's API reference: its name and icon, under a CSP without inline code (the look is tested in a browser).
    expect(ui.body).toContain('<title>Herald API reference</title>');
    expect(ui.body).toContain('theme/herald.svg');
    expect(ui.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self';/);
    const llms = await t.request({ method: 'GET', url: '/llms.txt' });
    expect(llms.body).toMatch(/^# Herald/);
    expect(llms.body).toContain('http://herald.test/public/v1/openapi.json');
    const dev = await t.request({ method: 'GET', url: '/developers' });
    expect(dev.body).toContain('id="deprecation-policy"');
    expect(dev.body).toContain('Authorization: Bearer');
  });
});
