import { createRequire } from 'node:module';
import type * as AtprotoApi from '@atproto/api';

const require = createRequire(import.meta.url);
let loaded: typeof AtprotoApi | undefined;

/**
 * The AT Protocol client library. It is large (about 400 modules, most of a second to load), so
 * it is loaded the first time a Bluesky channel is used, not when the process starts. Some of
 * its uses are synchronous (counting graphemes, checking a language tag), hence `require`.
 */
export function atproto(): typeof AtprotoApi {
  return (loaded ??= require('@atproto/api') as typeof AtprotoApi);
}
