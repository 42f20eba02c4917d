import { expect } from 'vitest';
import type { ProviderContext } from '../../../src/providers/provider.ts';
import { createTenant, TEST_BASE_URL, type TestApp, type Tenant } from '../../helpers/app.ts';
import { providerContext } from '../bluesky/helpers.ts';

export type Integration = {
  id: string;
  name: string;
  profile: string;
  picture: string;
  disabled: boolean;
  disabledReason?: string | null;
  identifier: string;
};

/**
 * Connects through the API: POST /integrations/connect, opens the answer's URL with a plain HTTP
 * client (the local platform approves at once and redirects back), then follows the redirect to
 * Herald's callback. When the callback asks to choose (its choice page) and `choice` is given,
 * posts that choice as the person's click would. Returns the callback page (the choice page when
 * one was shown and not answered) and the channels.
 */
export async function signInThroughApi(t: TestApp, tenant: Tenant, body: Record<string, unknown>, options: { choice?: string } = {}) {
  const started = await t.request({ method: 'POST', url: '/public/v1/integrations/connect', key: tenant.key, payload: body });
  expect(started.statusCode, started.body).toBe(200);
  const authorize = new URL((started.json() as { url: string }).url);
  const answer = await fetch(authorize, { redirect: 'manual' });
  expect(answer.status, await answer.clone().text()).toBe(302);
  const back = new URL(answer.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(`${TEST_BASE_URL}/integrations/callback/${String(body.provider)}`);
  let page = await t.request({ method: 'GET', url: back.pathname + back.search });
  expect(page.statusCode, page.body).toBe(200);
  const form = choiceForm(page.body);
  if (form && options.choice !== undefined) {
    page = await form.pick(t, options.choice);
    expect(page.statusCode, page.body).toBe(200);
  }
  return { authorize, page, channels: await listed(t, tenant) };
}

/** The choice page's form, its options (id and label) and a way to post one of them; null for any other page. */
export function choiceForm(body: string) {
  const form = /action="([^"]+\/choose)"[\s\S]*?name="state" value="([^"]+)"/.exec(body);
  if (!form) return null;
  const [, action, state] = form as unknown as [string, string, string];
  const options = [...body.matchAll(/name="choice" value="([^"]+)">([^<]*)<\/button>/g)].map((m) => ({ id: m[1]!, label: m[2]! }));
  return {
    action,
    options,
    pick: (t: TestApp, choice: string) =>
      t.request({
        method: 'POST',
        url: action,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ state, choice }).toString(),
      }),
  };
}

export async function listed(t: TestApp, tenant: Tenant): Promise<Integration[]> {
  return (await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).json() as Integration[];
}

/**
 * A new workspace with one channel connected through the sign-in, its token issued to live
 * `expiresIn` seconds (then the fake's lifetime is `lifetime` again), and a provider context
 * over its stored configuration.
 */
export async function connectedChannel(
  t: TestApp,
  fake: { expiresIn: number },
  provider: string,
  options: { expiresIn?: number; lifetime: number },
): Promise<{ tenant: Tenant; channelId: string; authorize: URL; ctx: ProviderContext }> {
  fake.expiresIn = options.expiresIn ?? options.lifetime;
  const tenant = await createTenant(t);
  const { authorize, channels } = await signInThroughApi(t, tenant, { provider });
  fake.expiresIn = options.lifetime;
  const channelId = channels[0]!.id;
  const config = await t.services.channels.config(tenant.workspaceId, channelId);
  return { tenant, channelId, authorize, ctx: providerContext(config, { channelId, platformApps: t.services.channels.platformApps }) };
}

/** GET /analytics/channels/:id with `refresh=true`: the collector reads the channel's account now. */
export function refreshChannelNumbers(t: TestApp, tenant: Tenant, channelId: string) {
  return t.request({
    method: 'GET',
    url: `/public/v1/analytics/channels/${channelId}?startDate=2026-06-01T00:00:00Z&endDate=2027-05-31T00:00:00Z&refresh=true`,
    key: tenant.key,
  });
}

/**
 * Connects a channel of `provider` through the sign-in (in a new workspace unless `tenant` is
 * given) and builds a provider context over its stored configuration whose waits stand in for
 * the engine's clock: each is recorded in `waits` and ends at once.
 */
export async function signedInWithWaits(t: TestApp, provider: string, tenant?: Tenant, options: { choice?: string } = {}) {
  const owner = tenant ?? (await createTenant(t));
  const { authorize, channels } = await signInThroughApi(t, owner, { provider }, options);
  const channelId = channels[0]!.id;
  const config = await t.services.channels.config(owner.workspaceId, channelId);
  const waits: number[] = [];
  const ctx: ProviderContext = {
    ...providerContext(config, { channelId, platformApps: t.services.channels.platformApps }),
    wait: async (ms) => {
      waits.push(ms);
    },
  };
  return { tenant: owner, authorize, channels, channelId, config, ctx, waits };
}
