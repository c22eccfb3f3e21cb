import type { Filter, StoredDoc } from '@paymesh/store';
import type { BillingDeps } from './deps';

/**
 * Every document matching `filter`, in pages of `limit`, in id order: each page starts after the
 * last id of the one before (keyset), so a page costs the same however deep the export is, and a
 * document written or updated meanwhile neither shifts a page nor comes twice. The collection
 * needs an index on (organizationId, mode, id) for the pages to be read in index order.
 */
export async function* keysetPages<D extends StoredDoc>(
  deps: Pick<BillingDeps, 'store'>,
  collection: string,
  filter: Filter,
  limit: number,
): AsyncGenerator<D[]> {
  let after: string | null = null;
  for (;;) {
    const page: Filter = after === null ? filter : { ...filter, id: { $gt: after } };
    const res = await deps.store.collection<D>(collection).find(page, { sort: { id: 1 }, limit });
    const last = res.items.at(-1);
    if (last) yield res.items;
    if (!last || res.items.length < limit) return;
    after = last.id;
  }
}

/** The days from `from` to `to` (`YYYY-MM-DD`, inclusive). */
export function* daysOf(from: string, to: string): Generator<string> {
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    yield new Date(t).toISOString().slice(0, 10);
}

/** Days asked for in one query (`$in`): a week, about as many rows as a page on a busy shop. */
const DAYS_PER_QUERY = 7;

/**
 * The documents whose day field (`issueDate`) lies in [from, to], a week of days at a time: an
 * equality (`$in` of the days) is served by the (organizationId, mode, <field>) index, where a range
 * on a JSON string is not (the planner then scans the table for every page). Pages as
 * {@link keysetPages}.
 */
export async function* dayPages<D extends StoredDoc>(
  deps: Pick<BillingDeps, 'store'>,
  collection: string,
  filter: Filter,
  field: string,
  range: { from: string; to: string },
  limit: number,
): AsyncGenerator<D[]> {
  let days: string[] = [];
  for (const day of daysOf(range.from, range.to)) {
    days.push(day);
    if (days.length === DAYS_PER_QUERY) {
      yield* keysetPages<D>(deps, collection, { ...filter, [field]: { $in: days } }, limit);
      days = [];
    }
  }
  if (days.length > 0) yield* keysetPages<D>(deps, collection, { ...filter, [field]: { $in: days } }, limit);
}
