import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropStaleNamespaces } from '../../deploy/local/namespace.mjs';
import { TEST_PG_URL } from '../support/kit';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const HOUR = 60 * 60 * 1000;

describe('dropping the namespaces a killed run left', () => {
  // Namespaces of this test only (`z<6 hex><2 hex>`), so that a run beside it loses nothing.
  const family = `z${randomBytes(3).toString('hex')}`;
  const pattern = new RegExp(`^(${family.toUpperCase()}[0-9A-F]{2})_`);
  const [left, other] = [`${family}0a`, `${family}0b`];
  let nc: NatsConnection;
  const db = new pg.Client({ connectionString: TEST_PG_URL });

  const streams = async () => {
    const names: string[] = [];
    for await (const si of (await nc.jetstreamManager()).streams.list()) {
      if (pattern.test(si.config.name)) names.push(si.config.name);
    }
    return names.sort();
  };
  const schemas = async () =>
    (await db.query('SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 ORDER BY 1', [`${family}%`])).rows.map(
      (r) => r.nspname as string,
    );

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
    await db.connect();
    const jsm = await nc.jetstreamManager();
    for (const ns of [left, other])
      for (const domain of ['checkout', 'billing']) {
        await jsm.streams.add({
          name: `${ns.toUpperCase()}_${domain.toUpperCase()}`,
          subjects: [`${ns}.${domain}.>`],
          max_bytes: 1024 * 1024,
        });
        await db.query(`CREATE SCHEMA "${ns}_${domain}"`);
      }
  });

  afterAll(async () => {
    const jsm = await nc.jetstreamManager();
    for (const name of await streams()) await jsm.streams.delete(name);
    for (const schema of await schemas()) await db.query(`DROP SCHEMA "${schema}" CASCADE`);
    await nc.close();
    await db.end();
  });

  it('keeps a namespace younger than the limit and drops its streams and schemas once older', async () => {
    expect(await dropStaleNamespaces(pattern, { olderThanMs: HOUR, pgUrl: TEST_PG_URL, natsUrl: NATS_URL })).toEqual(
      [],
    );
    expect(await streams()).toHaveLength(4);

    const later = Date.now() + 2 * HOUR;
    const dropped = await dropStaleNamespaces(pattern, {
      olderThanMs: HOUR,
      pgUrl: TEST_PG_URL,
      natsUrl: NATS_URL,
      now: later,
    });
    expect(dropped.sort()).toEqual([left, other]);
    expect(await streams()).toEqual([]);
    expect(await schemas()).toEqual([]);
  });
});
