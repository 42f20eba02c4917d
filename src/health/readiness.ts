import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** One dependency `/readyz` asks: it is reachable when `check` resolves. */
export type ReadinessCheck = { name: string; check(): Promise<void> };

export type CheckResult = { name: string; ok: boolean };

/** Runs every check at once, each bounded by `timeoutMs` (a hung dependency counts as down). */
export async function runChecks(
  checks: readonly ReadinessCheck[],
  timeoutMs: number,
  onError?: (name: string, error: unknown) => void,
): Promise<CheckResult[]> {
  return Promise.all(
    checks.map(async ({ name, check }) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          check(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return { name, ok: true };
      } catch (error) {
        onError?.(name, error);
        return { name, ok: false };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

export function databaseCheck(db: Db): ReadinessCheck {
  return { name: 'database', check: async () => void (await sql`select 1`.execute(db)) };
}

export function redisCheck(ping: () => Promise<unknown>): ReadinessCheck {
  return { name: 'redis', check: async () => void (await ping()) };
}

/** The media store: the bucket answers (`ping`), or else the local media directory is writable. */
export function storageCheck(ping: (() => Promise<void>) | null, dataDir: string): ReadinessCheck {
  if (ping) return { name: 'storage', check: ping };
  const dir = path.join(dataDir, 'media');
  return {
    name: 'storage',
    check: async () => {
      await fs.promises.mkdir(dir, { recursive: true });
      await fs.promises.access(dir, fs.constants.W_OK);
    },
  };
}
