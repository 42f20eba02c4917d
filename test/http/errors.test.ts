import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTenant, createTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { expectRateLimitHeaders } from '../helpers/auth-matrix.ts';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  // A synthetic route with a JSON body, to drive the body-handling cases through the real stack.
  t = await createTestApp({
    env: { BODY_LIMIT_BYTES: '1024' },
    extraRoutes: (app) => {
      app
        .withTypeProvider<ZodTypeProvider>()
        .post(
          '/public/v1/test-echo',
          { config: { scope: 'posts:read' }, schema: { hide: true, body: z.object({ text: z.string().min(1) }) } },
          async (request) => ({ echoed: request.body.text }),
        );
    },
  });
  tenant = await createTenant(t);
});

describe('error answers', () => {
  it('an unknown route is a 404 in the validation shape, with the headers', async () => {
    const res = await t.request({ method: 'GET', url: '/public/v1/nothing-here', key: tenant.key });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ statusCode: 404, message: 'Route GET /public/v1/nothing-here not found', error: 'Not Found' });
    expectRateLimitHeaders(res);
  });

  it('an unknown route is a 404 even without a credential', async () => {
    const res = await t.request({ method: 'DELETE', url: '/public/v1/integrations' });
    expect(res.statusCode).toBe(404);
  });

  it('a bodiless GET with Content-Type: application/json is served', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/public/v1/integrations',
      key: tenant.key,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('a bodiless GET with Content-Type and Content-Length: 0 is served', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/public/v1/groups',
      key: tenant.key,
      headers: { 'content-type': 'application/json', 'content-length': '0' },
    });
    expect(res.statusCode).toBe(200);
  });

  const echo = (payload: string, contentType = 'application/json', key = tenant.key) =>
    t.request({ method: 'POST', url: '/public/v1/test-echo', key, headers: { 'content-type': contentType }, payload });

  it('a valid JSON body is served', async () => {
    const res = await echo(JSON.stringify({ text: 'hi' }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ echoed: 'hi' });
  });

  it('malformed JSON is a 400 in the validation shape', async () => {
    const res = await echo('{"broken": ');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringMatching(/JSON/) });
  });

  it('a missing or invalid field is a 400 listing each problem', async () => {
    const res = await echo(JSON.stringify({ text: 5, extra: true }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: [expect.stringMatching(/^body\.text: /)] });
    const empty = await echo('');
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toEqual([expect.stringMatching(/^body: /)]);
  });

  it('a prototype-poisoning body is refused with a sentence naming the key, not "not valid JSON"', async () => {
    for (const body of [
      '{"text":"x","__proto__":{"admin":true}}',
      '{"text":"x","a":{"\\u005f_proto__":{}}}',
      '{"text":"x","constructor":{"prototype":{"admin":true}}}',
    ]) {
      const res = await echo(body);
      expect(res.statusCode, body).toBe(400);
      expect(res.json(), body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: expect.stringMatching(/"__proto__".*not allowed/),
      });
      expect(res.json().message, body).not.toMatch(/not valid JSON/);
    }
    // A key merely named "constructor" is fine.
    expect((await echo('{"text":"x","constructor":"y"}')).statusCode).toBe(200);
  });

  it('the credential is checked before the body is read', async () => {
    const res = await echo('{"broken": ', 'application/json', 'svc_nope');
    expect(res.statusCode).toBe(401);
  });

  it('an oversized body is a 413, not a 500', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/public/v1/test-echo',
      key: tenant.key,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ text: 'x'.repeat(5000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });

  it('a wrong content type is a 415, not a 500', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/public/v1/test-echo',
      key: tenant.key,
      headers: { 'content-type': 'application/x-something' },
      payload: 'hello',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ statusCode: 415, error: 'Unsupported Media Type' });
  });

  it('a JSON body without Content-Type, or sent as text/plain, is a 415 saying the body must be JSON', async () => {
    const bare = await t.request({ method: 'POST', url: '/public/v1/test-echo', key: tenant.key, payload: '{"text":"hi"}' });
    expect(bare.statusCode).toBe(415);
    expect(bare.json()).toEqual({
      statusCode: 415,
      error: 'Unsupported Media Type',
      message: expect.stringMatching(/no Content-Type.*must be JSON.*application\/json/),
    });
    const text = await echo('{"text":"hi"}', 'text/plain; charset=utf-8');
    expect(text.statusCode).toBe(415);
    expect(text.json().message).toMatch(/"text\/plain".*must be JSON/);
    const upload = await t.request({
      method: 'POST',
      url: '/public/v1/upload',
      key: tenant.key,
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(upload.statusCode).toBe(415);
    expect(upload.json().message).toMatch(/multipart\/form-data/);
  });

  it('a 5xx never leaks its internal message', async () => {
    const broken = await createTestApp();
    const key = (await createTenant(broken)).key;
    await broken.runtime.db.schema
      .dropTable('client_groups')
      .ifExists()
      .execute()
      .catch(() => {});
    await broken.runtime.db.schema.alterTable('channels').renameTo('channels_gone').execute();
    const res = await broken.request({ method: 'GET', url: '/public/v1/integrations', key });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ msg: expect.stringMatching(/Internal server error/), code: 'internal' });
    expect(res.body).not.toMatch(/channels|sqlite|relation|SELECT/i);
  });
});
