// The one platform call every HTTP provider goes through, against a local server: bodies as
// sent, what happens before an answer, the status → failure kind mapping, Retry-After, the
// platform's own error reading, a secret kept out of messages, and the answer size limit.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callPlatform, type Platform } from '../../src/providers/platform-call.ts';
import { closeOutboundClients, providerContext } from './bluesky/helpers.ts';
import { parseBody, ScriptedAnswers, startFakeHttp, type FakeCall, type FakeHttp, type FakeReply } from '../helpers/fake-http.ts';
import { providerFailure } from '../helpers/providers.ts';

let fake: FakeHttp;
const answers = new ScriptedAnswers<FakeCall, FakeReply>();
beforeAll(async () => {
  fake = await startFakeHttp((call) => {
    // A request under /hang/ is never answered, and takes no scripted answer: on a loaded machine it
    // may reach the server only after its caller gave up, when a later test's answers are queued.
    if (call.path.startsWith('/hang/')) return undefined;
    return answers.take(call) ?? { status: 200, body: { ok: true } };
  });
});
beforeEach(() => {
  answers.reset();
  fake.calls.length = 0;
});
afterAll(async () => {
  await fake.close();
  await closeOutboundClients();
});

const ctx = () => providerContext({});
const platform: Platform = { name: 'Example', timeoutMs: 2000 };

describe('bodies', () => {
  it('sends JSON, a form, multipart form data and raw bytes with their content types; a bearer token', async () => {
    const form = new FormData();
    form.set('caption', 'hi');
    form.set('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'a.png');
    await callPlatform(ctx(), platform, `${fake.url}/json`, { json: { a: 1 }, token: 'tok' });
    await callPlatform(ctx(), platform, `${fake.url}/form`, { form: { b: '2' } });
    await callPlatform(ctx(), platform, `${fake.url}/multipart`, { multipart: form });
    await callPlatform(ctx(), platform, `${fake.url}/bytes`, { method: 'PUT', body: new Uint8Array([9]), contentType: 'image/png' });
    await callPlatform(ctx(), platform, `${fake.url}/read`);
    const [json, urlencoded, multipart, bytes, read] = fake.calls;
    expect(json).toMatchObject({ method: 'POST', headers: { authorization: 'Bearer tok', 'content-type': 'application/json' } });
    expect((await parseBody(json!)).fields).toEqual({ a: 1 });
    expect((await parseBody(urlencoded!)).fields).toEqual({ b: '2' });
    const parts = await parseBody(multipart!);
    expect(parts.fields).toEqual({ caption: 'hi' });
    expect(new Uint8Array(await parts.files.get('file')!.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
    expect(bytes).toMatchObject({ method: 'PUT', headers: { 'content-type': 'image/png' } });
    expect([...bytes!.raw]).toEqual([9]);
    expect(read!.method).toBe('GET');
  });
});

describe('before an answer', () => {
  it('a refused address is rejected, a closed port transient', async () => {
    const refused = await providerFailure(
      callPlatform(providerContext({}, { outbound: { allowLoopback: false } }), platform, `${fake.url}/x`),
    );
    expect(refused).toMatchObject({ kind: 'rejected', message: expect.stringMatching(/^Example was not called\. Refused to connect/) });
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await providerFailure(callPlatform(ctx(), platform, `http://127.0.0.1:${port}/x`, { write: true }))).toMatchObject({
      kind: 'transient',
      message: expect.stringMatching(/^Example could not be reached/),
    });
  });

  it('a lost answer is an unknown outcome for a write and transient for a read', async () => {
    const quick = { ...platform, timeoutMs: 200, outcome: 'the note may or may not have been posted' };
    expect(await providerFailure(callPlatform(ctx(), quick, `${fake.url}/hang/write`, { json: {}, write: true }))).toMatchObject({
      kind: 'unknown_outcome',
      message: 'Example did not answer in time; the note may or may not have been posted.',
    });
    expect((await providerFailure(callPlatform(ctx(), quick, `${fake.url}/hang/read`))).kind).toBe('transient');
  });
});

describe('answers', () => {
  it("maps 429, 5xx, 401, the platform's auth statuses and other refusals, with Retry-After", async () => {
    const failure = async (reply: FakeReply, over: Partial<Platform> = {}) => {
      answers.next(reply);
      return providerFailure(callPlatform(ctx(), { ...platform, ...over }, `${fake.url}/x`));
    };
    expect(await failure({ status: 429, headers: { 'retry-after': '7' } })).toMatchObject({
      kind: 'rate_limited',
      message: 'Example answered 429',
      options: { status: 429, retryAfterMs: 7000 },
    });
    expect((await failure({ status: 503 })).kind).toBe('transient');
    expect((await failure({ status: 401 })).kind).toBe('auth');
    expect((await failure({ status: 403 })).kind).toBe('rejected');
    expect((await failure({ status: 403 }, { authStatuses: [403] })).kind).toBe('auth');
    expect((await failure({ status: 304 })).kind).toBe('rejected');
  });

  it("the platform's hook reads its reason, kind, wait and status; what counts as success is the platform's", async () => {
    const api: Platform = {
      ...platform,
      succeeded: (answer) => (answer.json as { ok?: boolean } | null)?.ok === true,
      readError: (answer) => {
        const body = answer.json as { error_code: number; description: string; retry: number };
        return {
          reason: body.description,
          status: body.error_code,
          retryAfterMs: body.retry * 1000,
          ...(body.description === 'duplicate' && { kind: 'rejected' as const }),
        };
      },
    };
    answers.next({ status: 200, body: { ok: false, error_code: 429, description: 'slow down', retry: 3 } });
    expect(await providerFailure(callPlatform(ctx(), api, `${fake.url}/x`))).toMatchObject({
      kind: 'rate_limited',
      message: 'Example answered 429: slow down',
      options: { status: 429, retryAfterMs: 3000 },
    });
    answers.next({ status: 200, body: { ok: false, error_code: 500, description: 'duplicate', retry: 0 } });
    expect((await providerFailure(callPlatform(ctx(), api, `${fake.url}/x`))).kind).toBe('rejected');
  });

  it('keeps a secret out of every message, and reads at most the limit', async () => {
    const secret = '12345:SECRET-TOKEN';
    answers.next({ status: 400, body: { description: `bad token ${secret}` } });
    const error = await providerFailure(
      callPlatform(
        ctx(),
        { ...platform, secret, readError: (a) => ({ reason: (a.json as { description: string }).description }) },
        `${fake.url}/bot${secret}/x`,
      ),
    );
    expect(error.message).toBe('Example answered 400: bad token <token>');
    answers.next({ status: 200, body: 'x'.repeat(5000) });
    const answer = await callPlatform(ctx(), { ...platform, limit: 1000 }, `${fake.url}/big`);
    expect(answer).toMatchObject({ status: 200, text: '', json: null });
  });
});
