import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { createOk, postBody, webhookTenant } from '../../helpers/posts.ts';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.ts';

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});

describe('webhook deliveries: text and html', () => {
  it('`text` is plain text with entities decoded (nothing escaped), `html` stays sanitised, and both are documented', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now' }, [
        { content: '<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; 5 &lt; 6 <b>bold</b><script>x()</script></p>' },
      ]),
    );
    await t.settle();
    const delivery = receiver.deliveries.find((d) => d.body.data.postId === created!.postId);
    expect(delivery!.body.data.text).toBe('<script>alert(1)</script> & 5 < 6 bold');
    expect(delivery!.body.data.html).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; 5 &lt; 6 <b>bold</b></p>');

    const settings = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${tenant.channelId}`, key: tenant.key });
    const connect = settings.json().connect as string;
    expect(connect).toMatch(/`text` is the same content as plain text/);
    expect(connect).toMatch(/Treat `text` as untrusted/);
    expect(fs.readFileSync('README.md', 'utf8')).toMatch(/treat `text` as untrusted/);
  });
});
