import { expect } from 'vitest';
import type { PlatformApps } from '../../src/providers/platform-apps.ts';
import { ProviderError } from '../../src/providers/provider.ts';
import { TEST_BASE_URL } from './app.ts';

/** Platform settings of a server where the operator registered no platform app. */
export const NO_PLATFORM_APPS: PlatformApps = {
  baseUrl: TEST_BASE_URL,
  apps: {
    linkedin: { clientId: null, clientSecret: null, apiBase: null },
    x: { clientId: null, clientSecret: null, apiBase: null },
    threads: { clientId: null, clientSecret: null, apiBase: null },
    tiktok: { clientId: null, clientSecret: null, apiBase: null },
    pinterest: { clientId: null, clientSecret: null, apiBase: null },
    reddit: { clientId: null, clientSecret: null, apiBase: null },
    facebook: { clientId: null, clientSecret: null, apiBase: null },
    instagram: { clientId: null, clientSecret: null, apiBase: null },
    google: { clientId: null, clientSecret: null, apiBase: null },
  },
};

/** The ProviderError a provider call fails with; the test fails if it succeeds or fails otherwise. */
export async function providerFailure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}
