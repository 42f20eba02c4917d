import pg from 'pg';
import { BACKEND, POSTGRES_URL } from './backend.ts';

/** Fails fast, with a clear message, when the selected backend is not reachable. */
export default async function setup(): Promise<void> {
  if (BACKEND !== 'postgres') return;
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(`HERALD_TEST_BACKEND=postgres but ${POSTGRES_URL} is not reachable: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}
