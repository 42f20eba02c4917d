import type { Db } from './db/database.ts';
import { isUniqueViolation } from './db/sql.ts';
import type { Clock } from './lib/clock.ts';
import type { Services } from './services.ts';

export type BootstrapResult = {
  workspaceId: string;
  userId: string;
  keyId: string;
  secret: string;
  signInLink: { url: string; expiresAt: string };
};

/**
 * On the first start with an empty database: a default workspace, its owner, a key with
 * every REST scope, so the API can be called at once, and a one-time sign-in link (24 hours)
 * so the owner reaches the account pages without mail set up. Runs at most once per database,
 * even when several processes start together (the `meta` row is the claim).
 */
export async function bootstrapIfEmpty(db: Db, services: Services, clock: Clock): Promise<BootstrapResult | null> {
  const anyUser = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (anyUser) return null;
  try {
    await db.insertInto('meta').values({ key: 'bootstrapped_at', value: clock.now().toISOString() }).execute();
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
  const workspace = await services.workspaces.create({ name: 'Default workspace' });
  const user = await services.users.create({ email: 'owner@localhost', name: 'Owner' });
  await services.workspaces.addMember(workspace.id, user.id, 'owner');
  const { key, secret } = await services.apiKeys.create({ userId: user.id, name: 'bootstrap key' });
  const signInLink = await services.signIn.createLink(user.id);
  return { workspaceId: workspace.id, userId: user.id, keyId: key.id, secret, signInLink };
}
