import type { TestApp } from './app.ts';

/** The counter in a one-row version table (access_version, channels_version). */
export async function readVersion(t: TestApp, table: 'access_version' | 'channels_version'): Promise<number> {
  const row = await t.runtime.db.selectFrom(table).select('version').where('id', '=', 1).executeTakeFirstOrThrow();
  return Number(row.version);
}

/** Starts watching a version table: each call runs a change and says whether the version moved with it. */
export async function versionWatch(t: TestApp, table: 'access_version' | 'channels_version') {
  let before = await readVersion(t, table);
  return async (change: () => Promise<unknown>): Promise<boolean> => {
    await change();
    const after = await readVersion(t, table);
    const moved = after > before;
    before = after;
    return moved;
  };
}
