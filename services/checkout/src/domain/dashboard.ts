import { TransactionStatus } from '@paymesh/contracts';
import { createHash } from 'node:crypto';
import type { Mode } from './site';
import type { TransactionDoc } from './transaction';

/**
 * Dashboard aggregates. Pure: no I/O, no clock.
 *
 * Each transaction contributes counters (a flat map, see {@link contributionOf}) to the buckets of
 * the quarter hour, the UTC day and the UTC month it was created in, once for its site and once for the whole
 * organization (site `*`). The contribution depends on the transaction's current state only, and
 * the contribution last added to the buckets is stored on the transaction itself
 * (`TransactionDoc.aggregated`): every write of a transaction adds `new - stored` to the buckets in
 * the same store transaction and stores `new`. So a repeated event (nothing written) adds nothing,
 * a crash loses nothing (both or neither commit), and a write that forgot the buckets is caught up
 * by the next one.
 *
 * Quarter hours: every time zone in use is offset from UTC by a multiple of 15 minutes (India
 * +05:30, Nepal +05:45, Chatham +12:45), so a local midnight is always a quarter-hour boundary and
 * any period of local days is a union of whole UTC months, whole UTC days (at most 30 at each end)
 * and quarter hours (at most 95 at each end).
 */

/** Version of the contribution rules; a stored contribution of another version is recomputed. */
export const AGGREGATES_VERSION = 1;

/** Site key of the organization-wide buckets. */
export const ALL_SITES = '*';

export type BucketLevel = 'quarter' | 'day' | 'month';

export const QUARTER_MS = 15 * 60 * 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;

/** Statuses whose payment was taken: completed, refunded (by decision) and disputed. */
export const TAKEN_STATUSES: readonly number[] = [
  TransactionStatus.completed,
  TransactionStatus.refunded,
  TransactionStatus.disputed,
];

/** A transaction's fields (stored or about to be). */
export type TxFields = Omit<TransactionDoc, 'id' | 'version'>;

/** What a transaction last added to the buckets (stored on it). */
export interface AggregatedContribution {
  v: number;
  organizationId: string;
  mode: Mode;
  siteId: string;
  /** Creation instant (ISO); picks the buckets. */
  at: string;
  counters: Record<string, number>;
}

/** A dashboard bucket document. */
export interface DashboardBucketDoc {
  id: string;
  version: number;
  organizationId: string;
  mode: Mode;
  /** A site ID, or `*` for the whole organization. */
  siteId: string;
  level: BucketLevel;
  /** Start of the bucket (ISO, UTC). */
  start: string;
  counters: Record<string, number>;
}

/** Provider key of counters: `<type>:<id>`, or `manual:` for transactions no provider backs. */
export function providerKey(doc: Pick<TransactionDoc, 'providerType' | 'providerId'>): string {
  return doc.providerId ? `${doc.providerType ?? 'unknown'}:${doc.providerId}` : 'manual:';
}

/**
 * Counter keys, per currency `C`:
 * - `C|n|<status>`: transactions in that status;
 * - `C|gross`, `C|paid`: amount and number of taken payments (status 1, 3 or 4);
 * - `C|refunded`: refunds of taken payments (the whole amount once marked refunded, else the
 *   recorded refunds, at most the amount);
 * - `C|lost`: lost or accepted disputes of taken payments (at most the amount);
 * - `C|p|<provider>|n|paid|gross|failed`: per provider, transactions, taken payments, their amount,
 *   failed ones.
 */
export function countersOf(doc: TxFields): Record<string, number> {
  const out: Record<string, number> = {};
  if (doc.deletedAt) return out;
  const add = (key: string, n: number) => {
    if (n !== 0) out[key] = (out[key] ?? 0) + n;
  };
  const c = doc.currency;
  const p = `${c}|p|${providerKey(doc)}`;
  add(`${c}|n|${doc.status}`, 1);
  add(`${p}|n`, 1);
  if (doc.status === TransactionStatus.failed) add(`${p}|failed`, 1);
  if (TAKEN_STATUSES.includes(doc.status)) {
    add(`${c}|gross`, doc.amount);
    add(`${c}|paid`, 1);
    add(`${p}|paid`, 1);
    add(`${p}|gross`, doc.amount);
    const refunds = (doc.refunds ?? []).reduce((sum, r) => sum + r.amount, 0);
    add(`${c}|refunded`, doc.status === TransactionStatus.refunded ? doc.amount : Math.min(refunds, doc.amount));
    const lost = (doc.chargebacks ?? [])
      .filter((cb) => cb.status === 'lost' || cb.status === 'accepted')
      .reduce((sum, cb) => sum + cb.amount, 0);
    add(`${c}|lost`, Math.min(lost, doc.amount));
  }
  return out;
}

/** The contribution of a transaction in its current state. */
export function contributionOf(doc: TxFields): AggregatedContribution {
  return {
    v: AGGREGATES_VERSION,
    organizationId: doc.organizationId,
    mode: doc.mode,
    siteId: doc.siteId,
    at: doc.createdAt,
    counters: countersOf(doc),
  };
}

/** A stored contribution that the current rules produced (else it is recomputed from scratch). */
export function isCurrent(stored: AggregatedContribution | null | undefined): stored is AggregatedContribution {
  return !!stored && stored.v === AGGREGATES_VERSION;
}

export interface BucketRef {
  organizationId: string;
  mode: Mode;
  siteId: string;
  level: BucketLevel;
  start: string;
}

export function quarterStart(iso: string): string {
  const t = Date.parse(iso);
  return new Date(t - (((t % QUARTER_MS) + QUARTER_MS) % QUARTER_MS)).toISOString();
}

export function dayStart(iso: string): string {
  const t = Date.parse(iso);
  return new Date(t - (((t % DAY_MS) + DAY_MS) % DAY_MS)).toISOString();
}

export function monthStart(iso: string): string {
  const d = new Date(iso);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString();
}

/** The six buckets a contribution goes to: its quarter hour, UTC day and UTC month, for its site and for all. */
export function bucketsOf(c: Pick<AggregatedContribution, 'organizationId' | 'mode' | 'siteId' | 'at'>): BucketRef[] {
  const out: BucketRef[] = [];
  for (const siteId of [c.siteId, ALL_SITES]) {
    out.push({ organizationId: c.organizationId, mode: c.mode, siteId, level: 'quarter', start: quarterStart(c.at) });
    out.push({ organizationId: c.organizationId, mode: c.mode, siteId, level: 'day', start: dayStart(c.at) });
    out.push({ organizationId: c.organizationId, mode: c.mode, siteId, level: 'month', start: monthStart(c.at) });
  }
  return out;
}

/** Deterministic 24-hex document ID of a bucket. */
export function bucketId(b: BucketRef): string {
  return createHash('sha256')
    .update(`${b.organizationId}|${b.mode}|${b.siteId}|${b.level}|${b.start}`)
    .digest('hex')
    .slice(0, 24);
}

/** Bucket ID -> counters to add, for moving from `before` (null: nothing added yet) to `after`. */
export function bucketDeltas(
  before: AggregatedContribution | null,
  after: AggregatedContribution,
): Map<string, { ref: BucketRef; deltas: Record<string, number> }> {
  const out = new Map<string, { ref: BucketRef; deltas: Record<string, number> }>();
  const apply = (c: AggregatedContribution, sign: 1 | -1) => {
    for (const ref of bucketsOf(c)) {
      const id = bucketId(ref);
      let entry = out.get(id);
      if (!entry) out.set(id, (entry = { ref, deltas: {} }));
      for (const [k, v] of Object.entries(c.counters)) entry.deltas[k] = (entry.deltas[k] ?? 0) + sign * v;
    }
  };
  if (before) apply(before, -1);
  apply(after, 1);
  for (const [id, entry] of out) {
    for (const [k, v] of Object.entries(entry.deltas)) if (v === 0) delete entry.deltas[k];
    if (Object.keys(entry.deltas).length === 0) out.delete(id);
  }
  return out;
}

/** Adds counter maps (for summing buckets). */
export function addCounters(into: Record<string, number>, more: Record<string, number>): void {
  for (const [k, v] of Object.entries(more)) if (typeof v === 'number') into[k] = (into[k] ?? 0) + v;
}
