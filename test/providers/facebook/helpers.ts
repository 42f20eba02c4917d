import { createTenant, type Tenant, type TestApp } from '../../helpers/app.ts';
import { signInThroughApi } from '../oauth/sign-in.ts';

/** A new workspace with a Facebook page connected through Facebook Login (the fake's only page). */
export async function connectedPage(t: TestApp): Promise<{ tenant: Tenant; channelId: string }> {
  const tenant = await createTenant(t);
  const { channels } = await signInThroughApi(t, tenant, { provider: 'facebook' });
  return { tenant, channelId: channels[0]!.id };
}

/** A POST /posts body publishing now on a Facebook channel. */
export const facebookPost = (channelId: string, value: Array<Record<string, unknown>>, settings: Record<string, unknown> = {}) => ({
  type: 'now',
  date: new Date().toISOString(),
  posts: [{ integration: { id: channelId }, value, settings: { __type: 'facebook', ...settings } }],
});
