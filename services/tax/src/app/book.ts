import { ConflictError, NotFoundError, ValidationError } from '@paymesh/core';
import type { Collection, StoredDoc, TxScope } from '@paymesh/store';
import { DEFAULT_RATES, DEFAULT_RATES_VERSION } from '../domain/default-rates';
import { DEFAULT_RULES } from '../domain/default-rules';
import { defaultRateFields, defaultRateKey, rateDocBody, type TaxRateDoc } from '../domain/tax-rate-doc';
import { ruleFieldsOf, ruleDocBody, type TaxRuleDoc } from '../domain/tax-rule-doc';
import { TAX_RATE_BOOKS, TAX_RATES, TAX_RULES } from '../store/collections';
import type { OrgKey, TaxDeps } from './deps';
import { recordId } from './tax-rate-checks';

/** Marker of a seeded book (one per organization and data mode). */
export interface RateBookDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  seededAt: string;
  /** Version of the managed defaults last synced into the book (seeding or replace-defaults). */
  defaultsVersion: string;
  /** +1 with every committed write to the book's rates or rules; caches compare it. */
  revision: number;
  updatedAt: string;
}

/** Inserts the managed default rates and rules into a book (inside the seeding transaction). */
async function insertDefaults(tx: TxScope, key: OrgKey, now: string): Promise<void> {
  const rates = tx.collection<TaxRateDoc>(TAX_RATES);
  for (const d of DEFAULT_RATES) {
    await rates.insert(
      rateDocBody(key, defaultRateFields(d), {
        managed: true,
        defaultKey: defaultRateKey(d),
        createdAt: now,
        updatedAt: now,
      }),
    );
  }
  const rules = tx.collection<TaxRuleDoc>(TAX_RULES);
  for (const r of DEFAULT_RULES) {
    await rules.insert(
      ruleDocBody(key, ruleFieldsOf(r), { managed: true, defaultKey: r.key, createdAt: now, updatedAt: now }),
    );
  }
}

/**
 * The book's marker; on the book's first use, seeds it with the managed defaults. The marker and
 * the defaults are inserted in one transaction, so exactly one of concurrent first uses seeds (the
 * unique marker decides) and the others, once it commits, see the whole book. A book is seeded
 * once: after that, even an emptied book stays empty until replace- or populate-defaults.
 */
export async function ensureBook(deps: TaxDeps, key: OrgKey): Promise<RateBookDoc> {
  const books = deps.store.collection<RateBookDoc>(TAX_RATE_BOOKS);
  const found = await books.findOne({ organizationId: key.organizationId, mode: key.mode });
  if (found) return found;
  const now = deps.clock.now().toISOString();
  try {
    const marker = await deps.store.transaction(async (tx) => {
      const m = await tx.collection<RateBookDoc>(TAX_RATE_BOOKS).insert({
        organizationId: key.organizationId,
        mode: key.mode,
        seededAt: now,
        defaultsVersion: DEFAULT_RATES_VERSION,
        revision: 1,
        updatedAt: now,
      });
      await insertDefaults(tx, key, now);
      return m;
    });
    deps.logger.info(
      { organizationId: key.organizationId, mode: key.mode, defaultsVersion: DEFAULT_RATES_VERSION },
      'tax rate book seeded with the managed defaults',
    );
    return marker;
  } catch (err) {
    if (!(err instanceof ConflictError && err.code === 'DUPLICATE_KEY')) throw err;
    // A concurrent first use seeded it; its transaction has committed.
    const winner = await books.findOne({ organizationId: key.organizationId, mode: key.mode });
    if (!winner) throw err;
    return winner;
  }
}

/**
 * Runs a write to the book's rates or rules in one transaction that first moves the marker's
 * revision. Taking the marker first serializes the writers of one book, so checks made inside
 * `write` (duplicates, overlapping periods, missing defaults) see every earlier write. Afterwards
 * this process's cached copy of the book is dropped.
 */
export async function writeBook<R>(
  deps: TaxDeps,
  key: OrgKey,
  write: (tx: TxScope, now: string) => Promise<R>,
  marker: Partial<Pick<RateBookDoc, 'defaultsVersion'>> = {},
): Promise<R> {
  const held = await ensureBook(deps, key);
  const now = deps.clock.now().toISOString();
  try {
    return await deps.store.transaction(async (tx) => {
      await tx.collection<RateBookDoc>(TAX_RATE_BOOKS).update(
        held.id,
        (cur) => ({
          organizationId: cur.organizationId,
          mode: cur.mode,
          seededAt: cur.seededAt,
          defaultsVersion: marker.defaultsVersion ?? cur.defaultsVersion,
          revision: cur.revision + 1,
          updatedAt: now,
        }),
        5,
        held,
      );
      return write(tx, now);
    });
  } finally {
    // Also after a failed write: the book was read under the lock, and dropping a copy is harmless.
    deps.rateBooks?.invalidate(key);
  }
}

/** A kind of record in the book (rates, rules): where it is kept and how a tenant's one is found. */
export interface BookRecordKind<D extends StoredDoc> {
  collection: string;
  /** The tenant's record with the id, else a NotFoundError. */
  own: (coll: Collection<D>, key: OrgKey, id: string) => Promise<D>;
  /** Its name in errors and logs (`tax rate`). */
  noun: string;
  /** The log field of its id (`rateId`). */
  logField: string;
}

/** A record of the book that a merchant may edit: a managed default stays recognisable by its key. */
interface EditableBookDoc extends StoredDoc {
  defaultKey: string | null;
  createdAt: string;
}

/** How a partial update makes the next fields of a record of one kind and stores them. */
export interface BookRecordEdit<D extends EditableBookDoc, F> {
  /** The record's fields after the patch, validated. */
  fields: (cur: D) => F;
  /** Checks the fields against the rest of the book (duplicates, overlaps); none when absent. */
  fits?: (coll: Collection<D>, key: OrgKey, fields: F, id: string) => Promise<void>;
  /** The stored document of the fields. */
  body: (
    key: OrgKey,
    fields: F,
    meta: { managed: boolean; defaultKey: string | null; createdAt: string; updatedAt: string },
  ) => Omit<D, 'id' | 'version'>;
}

/**
 * Partial update of one record of the book: the edited record becomes the merchant's own
 * (`managed: false`) and keeps its default's key. An unknown id is answered without touching (or
 * seeding) the book. `patch` is only checked for being non-empty and named in the log.
 */
export async function updateBookRecord<D extends EditableBookDoc, F>(
  deps: TaxDeps,
  key: OrgKey,
  id: string,
  patch: object,
  kind: BookRecordKind<D>,
  edit: BookRecordEdit<D, F>,
): Promise<D> {
  recordId(id);
  if (Object.keys(patch).length === 0) throw new ValidationError('body must change at least one field');
  await kind.own(deps.store.collection<D>(kind.collection), key, id);
  const doc = await writeBook(deps, key, async (tx, now) => {
    const coll = tx.collection<D>(kind.collection);
    const cur = await kind.own(coll, key, id);
    const fields = edit.fields(cur);
    if (edit.fits) await edit.fits(coll, key, fields, cur.id);
    return coll.replace(
      cur.id,
      cur.version,
      edit.body(key, fields, { managed: false, defaultKey: cur.defaultKey, createdAt: cur.createdAt, updatedAt: now }),
    );
  });
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, [kind.logField]: doc.id, fields: Object.keys(patch) },
    `${kind.noun} updated`,
  );
  return doc;
}

/** Deletes one record of the book. An unknown id is answered without touching (or seeding) the book. */
export async function deleteBookRecord<D extends StoredDoc>(
  deps: TaxDeps,
  key: OrgKey,
  id: string,
  kind: BookRecordKind<D>,
): Promise<{ id: string; deleted: true }> {
  recordId(id);
  await kind.own(deps.store.collection<D>(kind.collection), key, id);
  await writeBook(deps, key, async (tx) => {
    const coll = tx.collection<D>(kind.collection);
    await kind.own(coll, key, id);
    if (!(await coll.delete(id))) throw new NotFoundError(`${kind.noun} not found`);
  });
  deps.logger.info({ organizationId: key.organizationId, mode: key.mode, [kind.logField]: id }, `${kind.noun} deleted`);
  return { id, deleted: true };
}
