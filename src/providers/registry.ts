/** The platforms Herald can post to, by identifier (`settings.__type` in the public API). */
export const PROVIDER_IDENTIFIERS = ['webhook', 'bluesky'] as const;
export type ProviderIdentifier = (typeof PROVIDER_IDENTIFIERS)[number];

export function isProviderIdentifier(value: string): value is ProviderIdentifier {
  return (PROVIDER_IDENTIFIERS as readonly string[]).includes(value);
}
