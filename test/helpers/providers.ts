import { expect } from 'vitest';
import { ProviderError } from '../../src/providers/provider.ts';

/** The ProviderError a provider call fails with; the test fails if it succeeds or fails otherwise. */
export async function providerFailure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}
