import type { Pool } from 'pg';
import type { StoreLogger } from '../logger';
import { counted, type Queryable, type StatementCounter } from './sql';

/**
 * Runs `fn` inside BEGIN/COMMIT on one pooled client, rolling back when it throws. A client whose
 * connection failed is destroyed instead of returned, so the pool reconnects after a restart.
 */
export async function inTransaction<R>(
  pool: Pool,
  logger: StoreLogger | undefined,
  counter: StatementCounter,
  fn: (client: Queryable) => Promise<R>,
): Promise<R> {
  const client = await pool.connect();
  const db = counted(client, counter);
  let broken: Error | undefined;
  // pg-pool only listens for errors on idle clients; an unhandled one on a checked-out client
  // would crash the process.
  const onError = (err: Error) => {
    broken = err;
    logger?.warn({ err }, 'postgres connection lost during a transaction');
  };
  client.on('error', onError);
  try {
    await db.query('BEGIN');
    const result = await fn(db);
    await db.query('COMMIT');
    return result;
  } catch (err) {
    try {
      await db.query('ROLLBACK');
    } catch (rollbackErr) {
      broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
    }
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
