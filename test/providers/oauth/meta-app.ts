import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { closeOutboundClients } from '../bluesky/helpers.ts';
import { FakeMeta } from './fake-meta.ts';

/**
 * A test file's application (with the engine) and the local Graph API server its Meta apps point
 * at (Facebook Login, and Instagram Login with `instagramLogin`): started before the file's tests,
 * the server reset before each, both closed after. Read `t` and `meta` inside hooks and tests.
 */
export function useMetaApp(options: { instagramLogin?: boolean } = {}): { readonly t: TestApp; readonly meta: FakeMeta } {
  const state = {} as { t: TestApp; meta: FakeMeta };
  beforeAll(async () => {
    state.meta = await new FakeMeta().start();
    const meta = state.meta;
    state.t = await createTestApp({
      engine: true,
      env: {
        OUTBOUND_ALLOW_LOOPBACK: 'true',
        FACEBOOK_APP_ID: meta.fbAppId,
        FACEBOOK_APP_SECRET: meta.fbAppSecret,
        FACEBOOK_API_BASE: meta.url,
        ...(options.instagramLogin && {
          INSTAGRAM_APP_ID: meta.igAppId,
          INSTAGRAM_APP_SECRET: meta.igAppSecret,
          INSTAGRAM_API_BASE: meta.url,
        }),
      },
    });
  });
  beforeEach(() => state.meta.reset());
  afterAll(async () => {
    await closeOutboundClients();
    await state.t?.close();
    await state.meta?.stop();
  });
  return state;
}
