import pg from 'pg';
import { connect } from 'nats';
import { waitFor } from './kit';

/** Outbox rows of one service schema that were never published to JetStream. */
export interface UnpublishedOutbox {
  schema: string;
  count: number;
  oldest: string | null;
}

/**
 * Unpublished outbox rows in every service schema of a mesh namespace (`<namespace>_<service>`).
 * The PostgreSQL adapter of libs/store marks a relayed row by setting `published_at`; a row with
 * `published_at IS NULL` is an event the rest of the mesh has not seen yet.
 */
export async function unpublishedOutbox(pgUrl: string, namespace: string): Promise<UnpublishedOutbox[]> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    const schemas = await client.query<{ schema: string }>(
      `SELECT table_schema AS schema FROM information_schema.tables
       WHERE table_name = '_outbox' AND table_schema LIKE $1 ORDER BY 1`,
      [`${namespace}\\_%`],
    );
    const out: UnpublishedOutbox[] = [];
    for (const { schema } of schemas.rows) {
      const ident = `"${schema.replace(/"/g, '""')}"`;
      const r = await client.query<{ count: string; oldest: Date | null }>(
        `SELECT count(*) AS count, min(created_at) AS oldest FROM ${ident}."_outbox" WHERE published_at IS NULL`,
      );
      const row = r.rows[0];
      out.push({ schema, count: Number(row?.count ?? 0), oldest: row?.oldest ? row.oldest.toISOString() : null });
    }
    return out;
  } finally {
    await client.end();
  }
}

/** State of one durable JetStream consumer. */
export interface ConsumerBacklog {
  stream: string;
  consumer: string;
  /** Messages in its filter not yet delivered. */
  numPending: number;
  /** Delivered but not acknowledged. */
  numAckPending: number;
  /** Stream sequence up to which everything is acknowledged. */
  ackFloor: number;
  /** Last sequence of the consumer's stream when asked. */
  streamLastSeq: number;
}

/** Every durable consumer of a namespace's streams (`<NAMESPACE>_<DOMAIN>`), via the JetStream API. */
export async function consumerBacklogs(natsUrl: string, namespace: string): Promise<ConsumerBacklog[]> {
  const nc = await connect({ servers: natsUrl, timeout: 2000, reconnect: false });
  try {
    const jsm = await nc.jetstreamManager({ timeout: 5000 });
    const prefix = `${namespace.toUpperCase()}_`;
    const out: ConsumerBacklog[] = [];
    for await (const si of jsm.streams.list()) {
      if (!si.config.name.startsWith(prefix)) continue;
      for await (const ci of jsm.consumers.list(si.config.name)) {
        out.push({
          stream: si.config.name,
          consumer: ci.name,
          numPending: ci.num_pending,
          numAckPending: ci.num_ack_pending,
          ackFloor: ci.ack_floor.stream_seq,
          streamLastSeq: si.state.last_seq,
        });
      }
    }
    return out;
  } finally {
    await nc.close();
  }
}

/** GET on a provider_a sandbox account, as the account's secret key. */
async function sandboxGet(sandboxUrl: string, secretKey: string, path: string): Promise<any> {
  const res = await fetch(`${sandboxUrl}${path}`, { headers: { authorization: `Bearer ${secretKey}` } });
  return res.ok ? res.json() : undefined;
}

/** Every payment intent of a provider_a sandbox account that the sandbox reports as succeeded (captured). */
export async function succeededIntents(sandboxUrl: string, secretKey: string): Promise<Set<string>> {
  const out = new Set<string>();
  let after: string | undefined;
  for (let page = 0; page < 200; page++) {
    const body = await sandboxGet(
      sandboxUrl,
      secretKey,
      `/v1/payment_intents?limit=100${after ? `&starting_after=${after}` : ''}`,
    );
    const data = (body?.data ?? []) as { id: string; status: string }[];
    for (const pi of data) if (pi.status === 'succeeded') out.add(pi.id);
    if (!body?.has_more || data.length === 0) break;
    after = data.at(-1)?.id;
  }
  return out;
}

/** Payment intents of a provider_a sandbox account whose `payment_intent.succeeded` event still waits for delivery. */
export async function undeliveredIntents(sandboxUrl: string, secretKey: string): Promise<Set<string>> {
  const out = new Set<string>();
  const body = await sandboxGet(sandboxUrl, secretKey, '/v1/events?type=payment_intent.succeeded&limit=100');
  for (const e of (body?.data ?? []) as { pending_webhooks: number; data: { object: { id: string } } }[]) {
    if (e.pending_webhooks > 0) out.add(e.data.object.id);
  }
  return out;
}

/**
 * "Nothing else happened" in a mesh, without sleeping: waits until the mesh is quiet, that is every
 * durable consumer of the namespace has acknowledged everything in its filter and every outbox row is
 * published, with no stream having grown meanwhile (consumers, then outboxes, then consumers again,
 * unchanged). A handler commits its state and events before it acknowledges, so once the mesh is quiet
 * every event the earlier actions caused has been published and handled, and the assertions that
 * follow see the final state. Periodic work (expiry, reconciliation) is not waited for.
 */
export async function meshQuiet(pgUrl: string, natsUrl: string, namespace: string, timeoutMs = 20_000): Promise<void> {
  const acked = async (): Promise<string | undefined> => {
    const all = await consumerBacklogs(natsUrl, namespace);
    if (all.some((c) => c.numPending > 0 || c.numAckPending > 0)) return undefined;
    return JSON.stringify(all.map((c) => [c.stream, c.consumer, c.ackFloor, c.streamLastSeq]));
  };
  await waitFor(
    async () => {
      const before = await acked();
      if (before === undefined) return false;
      if ((await unpublishedOutbox(pgUrl, namespace)).some((o) => o.count > 0)) return false;
      return (await acked()) === before;
    },
    { timeoutMs, stepMs: 100, what: `the mesh ${namespace} to be quiet (outboxes published, consumers caught up)` },
  );
}
