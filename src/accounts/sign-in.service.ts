import type { Db } from '../db/database.ts';
import { AppError, BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { normaliseEmail } from '../users/users.schema.ts';
import type { UsersService, User } from '../users/users.service.ts';
import type { WorkspacesService } from '../workspaces/workspaces.service.ts';
import * as repo from './accounts.repository.ts';
import type { BackgroundWork } from './background.ts';
import type { SessionsService } from './sessions.service.ts';
import { signInCodeMessage } from './mail-messages.ts';
import type { Mailer } from './mailer.ts';
import { codeHash, newCode, newToken, sameHash, sha256 } from './tokens.ts';

export type SignUpPolicy = 'open' | 'invite' | 'closed';

export const CODE_TTL_MS = 15 * 60_000;
export const MAX_WRONG_TRIES = 5;
/** Per address and per hour: codes sent, and codes tried. */
export const ADDRESS_WINDOW_MS = 60 * 60_000;
export const MAX_STARTS_PER_ADDRESS = 5;
export const MAX_VERIFIES_PER_ADDRESS = 20;
export const OWNER_LINK_TTL_MS = 24 * 60 * 60_000;

/**
 * Sign-up and sign-in by a one-time code sent by e-mail, and by one-time links. Whatever the
 * address (new, known, invited, refused by the policy), asking for a code does the same work
 * before the answer; who gets mail is decided afterwards (`start` returns that part).
 */
export class SignInService {
  /** When this process last cleared rows that hold nothing any more. */
  #lastHousekeeping = 0;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      mailer: Mailer;
      policy: SignUpPolicy;
      baseUrl: string;
      users: UsersService;
      workspaces: WorkspacesService;
      sessions: SessionsService;
      background: BackgroundWork;
    },
  ) {}

  get policy(): SignUpPolicy {
    return this.deps.policy;
  }

  /**
   * Counts the request against the address and schedules the mail. The returned promise settles
   * after the same statements for every well-formed address; the mail (or none) follows in the background.
   */
  async start(rawEmail: string, options: { afterAnswer: (deliver: () => Promise<void>) => void }): Promise<void> {
    const email = normaliseEmail(rawEmail);
    await this.#count(email, 'starts_in_window', MAX_STARTS_PER_ADDRESS, 'codes');
    options.afterAnswer(() => this.#deliver(email));
  }

  /** Runs a request's after-answer work in the background. */
  later(deliver: () => Promise<void>): void {
    this.deps.background.run(deliver);
  }

  /** What a person may become at sign-in: who already exists, or whom the policy lets in. */
  async #admission(email: string): Promise<{ user: User | null; allowed: boolean }> {
    const user = await this.deps.users.get(email).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (user) return { user, allowed: true };
    if (this.deps.policy === 'open') return { user: null, allowed: true };
    if (this.deps.policy === 'invite') {
      const invited = await repo.listInvitationsOfEmail(this.deps.db, email, this.deps.clock.now().toISOString());
      return { user: null, allowed: invited.length > 0 };
    }
    return { user: null, allowed: false };
  }

  async #deliver(email: string): Promise<void> {
    await this.#housekeeping();
    const { user, allowed } = await this.#admission(email);
    if (!allowed) return;
    const code = newCode();
    const expiresAt = new Date(this.deps.clock.now().getTime() + CODE_TTL_MS).toISOString();
    await repo.replaceCode(this.deps.db, email, codeHash(email, code), expiresAt);
    await this.deps.mailer.send(
      signInCodeMessage({ baseUrl: this.deps.baseUrl, email, code, newAccount: user === null, ttlMinutes: CODE_TTL_MS / 60_000 }),
    );
  }

  /** At most every ten minutes, after an answer: forgets addresses whose counters and codes are over. */
  async #housekeeping(): Promise<void> {
    const now = this.deps.clock.now();
    if (Math.abs(now.getTime() - this.#lastHousekeeping) < 10 * 60_000) return;
    this.#lastHousekeeping = now.getTime();
    await repo.deleteIdleCodes(this.deps.db, new Date(now.getTime() - ADDRESS_WINDOW_MS).toISOString(), now.toISOString());
    await this.deps.sessions.prune();
  }

  async #count(email: string, field: 'starts_in_window' | 'verifies_in_window', max: number, what: string): Promise<void> {
    const now = this.deps.clock.now();
    const counts = await repo.countAgainstAddress(
      this.deps.db,
      email,
      field,
      now.toISOString(),
      new Date(now.getTime() - ADDRESS_WINDOW_MS).toISOString(),
    );
    if (Number(counts[field]) > max) {
      throw new AppError(429, 'rate_limited', `Too many sign-in ${what} for this address; try again within an hour.`, {
        headers: { 'Retry-After': String(ADDRESS_WINDOW_MS / 1000) },
      });
    }
  }

  /**
   * Checks a code and returns the user it signs in, creating them when the policy allows it.
   * A wrong, expired, used-up or never-sent code gets the same answer.
   */
  async verify(rawEmail: string, code: string): Promise<{ user: User; created: boolean }> {
    const email = normaliseEmail(rawEmail);
    await this.#count(email, 'verifies_in_window', MAX_VERIFIES_PER_ADDRESS, 'attempts');
    const invalid = new BadRequestError('That code is wrong or has expired. Ask for a new code and use the latest one.', {
      code: 'invalid_code',
    });
    const row = await repo.findCode(this.deps.db, email);
    const presented = codeHash(email, code.trim());
    if (!row?.code_hash || !row.expires_at) {
      sameHash(presented, presented);
      throw invalid;
    }
    if (Date.parse(row.expires_at) <= this.deps.clock.now().getTime()) throw invalid;
    if (!sameHash(presented, row.code_hash)) {
      await repo.countWrongTry(this.deps.db, email, row.code_hash, MAX_WRONG_TRIES);
      throw invalid;
    }
    const used = await repo.consumeCode(this.deps.db, email, row.code_hash);
    if (Number(used.numUpdatedRows) === 0) throw invalid;
    return this.#signIn(email);
  }

  async #signIn(email: string): Promise<{ user: User; created: boolean }> {
    const { user, allowed } = await this.#admission(email);
    if (!allowed) throw new ForbiddenError('Sign-up is not open for this address.', { code: 'signup_not_allowed' });
    let created = false;
    let signedIn = user;
    if (!signedIn) {
      try {
        signedIn = await this.deps.users.create({ email });
        created = true;
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        signedIn = await this.deps.users.get(email);
      }
    }
    // Invitations wait for their recipient's answer on the account pages: joining is never automatic.
    if (created && this.deps.policy === 'open') {
      await this.deps.workspaces.create({ name: `${email.split('@')[0]}'s workspace`, ownerId: signedIn.id });
    }
    return { user: signedIn, created };
  }

  /** A one-time sign-in link for a user (the owner's, on the first start). */
  async createLink(userId: string, ttlMs = OWNER_LINK_TTL_MS): Promise<{ url: string; expiresAt: string }> {
    const token = newToken();
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    await repo.insertSignInLink(this.deps.db, {
      token_hash: sha256(token),
      user_id: userId,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      used_at: null,
    });
    return { url: `${this.deps.baseUrl}/account/link/${token}`, expiresAt };
  }

  /** Uses a one-time link up; returns the user it signs in. */
  async useLink(token: string): Promise<User> {
    const used = await repo.consumeSignInLink(this.deps.db, sha256(token), this.deps.clock.now().toISOString());
    if (!used)
      throw new BadRequestError('This sign-in link was already used or has expired. Sign in with your e-mail address instead.', {
        code: 'invalid_link',
      });
    return this.deps.users.get(used.user_id);
  }
}
