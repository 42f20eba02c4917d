import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { pause } from '../providers/oauth-api.ts';
import { ProviderError, type Provider, type ProviderContext } from '../providers/provider.ts';
import * as repo from './channels.repository.ts';

export type RenewalOptions = {
  /** How long a claim holds: longer than a renewal's call to the platform may take, so only a crashed renewer's claim lapses. */
  claimMs: number;
  /** How often a process waiting on another's renewal reads the channel again. */
  pollMs: number;
  /** Reads a waiting process makes before it gives up (the publish is retried later). */
  maxPolls: number;
};

export const DEFAULT_RENEWAL_OPTIONS: RenewalOptions = { claimMs: 2 * 60_000, pollMs: 250, maxPolls: 4 * 150 };

/** How a platform renews a channel's credentials (see Provider.renewal). */
export type Renewal = {
  /** True when `config` must be renewed before use. */
  due(config: Record<string, unknown>): boolean;
  /** Renews `config` with the platform; the configuration to store. */
  renew(config: Record<string, unknown>): Promise<Record<string, unknown>>;
};

/**
 * Renews channels' credentials once at a time per channel across every Herald process. Within a
 * process, publishes of a channel share the renewal under way. Across processes, the one that
 * takes the channel's claim in the database (a conditional update, free or lapsed claims only)
 * renews and stores the sealed result as it lets go; the others read the channel until the
 * stored credentials change (then use them) or the claim is free again (then claim it), for a
 * bounded time. A renewer that crashed holds its claim only until it lapses.
 *
 * This matters where refresh tokens are single-use (X rotates them): a second renewal with the
 * same refresh token is refused, which would disable the channel for nothing.
 */
export class CredentialRenewals {
  readonly #underway = new Map<string, Promise<Record<string, unknown>>>();
  readonly #options: RenewalOptions;

  constructor(
    private readonly deps: { db: Db; clock: Clock; secretBox: SecretBox },
    options: Partial<RenewalOptions> = {},
  ) {
    this.#options = { ...DEFAULT_RENEWAL_OPTIONS, ...options };
  }

  /**
   * The credentials to use for channel `channelId`, read as `current`, once renewed (by this
   * call, or by a renewal under way elsewhere that this call waits on). A refused renewal throws
   * the platform's ProviderError; a wait that outlasts its bound throws a transient one.
   */
  renew(channelId: string, current: Record<string, unknown>, renewal: Renewal): Promise<Record<string, unknown>> {
    const underway = this.#underway.get(channelId);
    if (underway) return underway;
    const result = this.#renewOnce(channelId, current, renewal).finally(() => this.#underway.delete(channelId));
    this.#underway.set(channelId, result);
    return result;
  }

  /**
   * `ctx` with the channel's credentials ready for use: renewed first when the provider's
   * `renewal.due` says so (not when `renewDue` is false: a disabled channel), and with `renewNow`
   * for a refusal the platform gives before they were due (a Lemmy instance that ended its
   * session). Both renew through `renew`: once per channel across processes, the result stored.
   * A platform without `renewal` gets `ctx` as it is.
   */
  async live(provider: Pick<Provider, 'renewal'>, ctx: ProviderContext, renewDue = true): Promise<ProviderContext> {
    const { renewal } = provider;
    if (!renewal) return ctx;
    const { renewNow: _renewNow, ...base } = ctx;
    const renew = (current: Record<string, unknown>) => {
      const now = this.deps.clock.now();
      return this.renew(ctx.channel.id, current, {
        due: (stored) => renewal.due(stored, now),
        renew: (stored) => renewal.renew({ ...base, config: stored }, now),
      });
    };
    let config = ctx.config;
    if (renewDue && renewal.due(config, this.deps.clock.now())) config = await renew(config);
    return { ...base, config, renewNow: async () => (config = await renew(config)) };
  }

  async #renewOnce(channelId: string, current: Record<string, unknown>, renewal: Renewal): Promise<Record<string, unknown>> {
    const { db, clock } = this.deps;
    const holder = newId();
    for (let polls = 0; ; polls++) {
      const now = clock.now();
      if (
        await repo.claimRenewal(db, channelId, holder, now.toISOString(), new Date(now.getTime() + this.#options.claimMs).toISOString())
      ) {
        return this.#renewClaimed(channelId, holder, current, renewal);
      }
      // Another process holds the claim (or the channel cannot post): see what it stored.
      const row = await repo.findRenewal(db, channelId);
      if (!row || row.deleted_at !== null) throw new ProviderError('rejected', 'The channel was deleted.');
      if (Number(row.disabled) === 1)
        throw new ProviderError('auth', 'The channel was disabled while its access token was being renewed; connect it again.');
      const stored = this.#open(row.credentials);
      if (!isDeepStrictEqual(stored, current) && !renewal.due(stored)) return stored;
      if (polls >= this.#options.maxPolls) {
        throw new ProviderError(
          'transient',
          "Another Herald worker is still renewing this channel's access token; the publish will be tried again.",
        );
      }
      await pause(this.#options.pollMs);
    }
  }

  /** With the claim: renews unless someone renewed since `current` was read, stores the result, lets go. */
  async #renewClaimed(
    channelId: string,
    holder: string,
    current: Record<string, unknown>,
    renewal: Renewal,
  ): Promise<Record<string, unknown>> {
    const { db, clock, secretBox } = this.deps;
    try {
      const row = await repo.findRenewal(db, channelId);
      const stored = row ? this.#open(row.credentials) : current;
      if (!isDeepStrictEqual(stored, current) && !renewal.due(stored)) {
        await repo.releaseRenewal(db, channelId, holder);
        return stored;
      }
      const fresh = await renewal.renew(stored);
      await repo.storeRenewed(db, channelId, holder, secretBox.seal(JSON.stringify(fresh)), clock.now().toISOString());
      return fresh;
    } catch (error) {
      await repo.releaseRenewal(db, channelId, holder).catch(() => {});
      throw error;
    }
  }

  #open(sealed: string | null): Record<string, unknown> {
    return sealed ? (JSON.parse(this.deps.secretBox.open(sealed)) as Record<string, unknown>) : {};
  }
}
