import { isUniqueViolation } from '../db/sql.ts';
import type { Db } from '../db/database.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import * as repo from './users.repository.ts';
import { normaliseEmail } from './users.schema.ts';

export type User = { id: string; email: string; name: string | null; createdAt: string };

function toUser(row: { id: string; email: string; name: string | null; created_at: string }): User {
  return { id: row.id, email: row.email, name: row.name, createdAt: row.created_at };
}

export class UsersService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  async create(input: { email: string; name?: string | null | undefined }): Promise<User> {
    const row = {
      id: newId(),
      email: normaliseEmail(input.email),
      name: input.name ?? null,
      created_at: this.deps.clock.now().toISOString(),
    };
    try {
      await repo.insertUser(this.deps.db, row);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`A user with e-mail ${row.email} already exists.`, { cause: error });
      throw error;
    }
    return toUser(row);
  }

  async list(): Promise<User[]> {
    return (await repo.listUsers(this.deps.db)).map(toUser);
  }

  /**
   * Deletes a user with their memberships and keys. Refused while they are the only owner of a
   * workspace, which would be left without anyone who can manage it.
   */
  async delete(idOrEmail: string): Promise<User> {
    const user = await this.get(idOrEmail);
    const sole = await repo.listSoleOwnerships(this.deps.db, user.id);
    if (sole.length > 0) {
      throw new ConflictError(
        `${user.email} is the only owner of workspace ${sole.map((w) => `${w.id} ("${w.name}")`).join(', ')}; make another member owner (herald admin member set-role) or delete the workspace first.`,
        { code: 'sole_owner' },
      );
    }
    await repo.deleteUser(this.deps.db, user.id);
    return user;
  }

  /** Finds a user by id or e-mail address. */
  async get(idOrEmail: string): Promise<User> {
    const row = idOrEmail.includes('@')
      ? await repo.findUserByEmail(this.deps.db, normaliseEmail(idOrEmail))
      : await repo.findUserById(this.deps.db, idOrEmail);
    if (!row) throw new NotFoundError(`No user ${idOrEmail}.`);
    return toUser(row);
  }
}
