import { expect } from 'vitest';
import { TEST_BASE_URL, type TestApp, type Tenant } from '../../helpers/app.ts';

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
 * Herald's callback. Returns the callback page and the new channel.
 */
export async function signInThroughApi(t: TestApp, tenant: Tenant, body: Record<string, unknown>) {
  const started = await t.request({ method: 'POST', url: '/public/v1/integrations/connect', key: tenant.key, payload: body });
  expect(started.statusCode, started.body).toBe(200);
  const authorize = new URL((started.json() as { url: string }).url);
  const answer = await fetch(authorize, { redirect: 'manual' });
  expect(answer.status, await answer.clone().text()).toBe(302);
  const back = new URL(answer.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(`${TEST_BASE_URL}/integrations/callback/${String(body.provider)}`);
  const page = await t.request({ method: 'GET', url: back.pathname + back.search });
  expect(page.statusCode, page.body).toBe(200);
  return { authorize, page, channels: await listed(t, tenant) };
}

export async function listed(t: TestApp, tenant: Tenant): Promise<Integration[]> {
  return (await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).json() as Integration[];
}
