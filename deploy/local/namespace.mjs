// Removes everything a mesh namespace left behind: its PostgreSQL schemas and JetStream streams.
// Used by the test harness and the benchmarks, which run in throw-away namespaces.
import pg from 'pg';
import { connect } from 'nats';

export async function dropNamespace(
  namespace,
  { pgUrl = 'postgres://postgres@127.0.0.1:5432/postgres', natsUrl = 'nats://127.0.0.1:4222' } = {},
) {
  if (!/^[a-z][a-z0-9]{2,30}$/.test(namespace)) throw new Error(`refusing to drop suspicious namespace "${namespace}"`);
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    const res = await client.query('SELECT nspname FROM pg_namespace WHERE nspname LIKE $1', [`${namespace}\\_%`]);
    for (const row of res.rows) await client.query(`DROP SCHEMA IF EXISTS "${row.nspname}" CASCADE`);
  } finally {
    await client.end();
  }
  // NATS_URL may list a cluster's servers, comma-separated.
  const nc = await connect({ servers: natsUrl.split(',').map((s) => s.trim()) });
  try {
    const jsm = await nc.jetstreamManager();
    const prefix = `${namespace.toUpperCase()}_`;
    for await (const si of jsm.streams.list()) {
      if (si.config.name.startsWith(prefix)) await jsm.streams.delete(si.config.name);
    }
  } finally {
    await nc.close();
  }
}

/**
 * Drops the throw-away namespaces a killed run left behind: `pattern` picks the streams of such
 * namespaces (its first group is the namespace's token), and a namespace whose newest stream is
 * older than `olderThanMs` is dropped like {@link dropNamespace}. JetStream reserves each stream's size cap from its storage, so leftovers of
 * killed test runs would otherwise fill it. Returns the namespaces dropped.
 */
export async function dropStaleNamespaces(
  pattern,
  { olderThanMs, pgUrl, natsUrl = 'nats://127.0.0.1:4222', now = Date.now() },
) {
  const newest = new Map();
  const nc = await connect({ servers: natsUrl.split(',').map((s) => s.trim()) });
  try {
    const jsm = await nc.jetstreamManager();
    for await (const si of jsm.streams.list()) {
      const token = pattern.exec(si.config.name)?.[1];
      if (!token) continue;
      const created = Date.parse(si.created);
      newest.set(token, Math.max(newest.get(token) ?? 0, Number.isNaN(created) ? now : created));
    }
  } finally {
    await nc.close();
  }
  const stale = [...newest].filter(([, created]) => now - created > olderThanMs).map(([token]) => token.toLowerCase());
  for (const namespace of stale) await dropNamespace(namespace, { ...(pgUrl ? { pgUrl } : {}), natsUrl });
  return stale;
}
