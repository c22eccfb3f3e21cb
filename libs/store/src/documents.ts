import { ConflictError, NotFoundError, ValidationError, isDomainError, newObjectId } from '@paymesh/core';
import type { Collection, NewDoc, Numbering, ReplaceArgs, StoredDoc, TxScope } from './port';

/** Body of a stored document: JSON-normalized, without the store-maintained `id` and `version`. */
export type Body = Record<string, unknown>;

/**
 * JSON.stringify escapes exactly the characters neither backend can store faithfully as `\u0000`
 * (NUL) and `\udXXX` (a lone surrogate; paired ones are emitted as is). The look-behind skips
 * escaped backslashes, so a literal backslash followed by `u0000` is not matched.
 */
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string holds a NUL or an unpaired surrogate (text neither backend stores as is). */
export function hasUnstorableText(value: string): boolean {
  return value.includes('\u0000') || LONE_SURROGATE.test(value);
}

/**
 * Normalizes a document to what both backends store: a JSON object (Dates become ISO strings,
 * undefined fields disappear), minus `id`/`version`, which the store keeps itself.
 */
export function toBody(doc: object): Body {
  let json: string;
  try {
    json = JSON.stringify(doc);
  } catch (err) {
    throw new ValidationError('document is not JSON-serializable', { cause: err });
  }
  if (UNSTORABLE_ESCAPE.test(json)) {
    throw new ValidationError('document contains a NUL character or an unpaired UTF-16 surrogate');
  }
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ValidationError('document must be a JSON object');
  }
  const body: Body = { ...parsed };
  delete body.id;
  delete body.version;
  if ('_id' in body) throw new ValidationError('document must not have an _id field', { field: '_id' });
  return body;
}

/** `replace`'s arguments in their three-part form (the whole document is its own `next`). */
export function replaceArgs<T extends StoredDoc>(
  args: ReplaceArgs<T>,
): { id: string; expectedVersion: number; next: Omit<T, 'id' | 'version'> } {
  if (args.length === 1) return { id: args[0].id, expectedVersion: args[0].version, next: args[0] };
  const [id, expectedVersion, next] = args;
  return { id, expectedVersion, next };
}

export function toStored<T extends StoredDoc>(id: string, version: number, body: Body): T {
  const stored: StoredDoc = { ...body, id, version };
  return stored as T;
}

export function assertDocId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0)
    throw new ValidationError('id must be a non-empty string', { field: 'id' });
}

/** A document about to be inserted: its id (the one given, checked, or a new ObjectId) and its body. */
export function prepareInsert(doc: { id?: string }): { id: string; body: Body } {
  const id = doc.id ?? newObjectId();
  assertDocId(id);
  return { id, body: toBody(doc) };
}

/** `insertMany`'s documents, each prepared as by {@link prepareInsert}; at most 1000 per call. */
export function prepareInsertMany(docs: { id?: string }[]): { id: string; body: Body }[] {
  if (docs.length > 1000) throw new ValidationError('insertMany: at most 1000 documents per call');
  return docs.map(prepareInsert);
}

/** Checks the arguments of `addToCounters` (ids differ and are valid, deltas are finite numbers). */
export function assertCounterItems(
  field: string,
  items: ReadonlyArray<{ id: string; deltas: Record<string, number> }>,
): void {
  if (new Set(items.map((i) => i.id)).size !== items.length)
    throw new ValidationError('addToCounters: ids must differ');
  for (const i of items) {
    assertDocId(i.id);
    assertCounters(field, i.deltas);
  }
}

/**
 * `addToCounters` arguments: a plain top-level field name and finite numbers under keys without
 * `.` or `$` (MongoDB reads those as paths and operators).
 */
export function assertCounters(field: string, deltas: Record<string, number>): void {
  if (!/^[A-Za-z_]\w*$/.test(field) || field === 'id' || field === 'version' || field === '_id') {
    throw new ValidationError(`counter field "${field}" must be a plain top-level field name`, { field: 'field' });
  }
  for (const [key, value] of Object.entries(deltas)) {
    if (key.length === 0 || key.includes('.') || key.startsWith('$'))
      throw new ValidationError(`counter key "${key}" must not be empty, contain "." or start with "$"`);
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new ValidationError(`counter "${key}" must be a finite number`);
  }
}

export function assertVersion(version: number): void {
  if (!Number.isSafeInteger(version) || version < 1)
    throw new ValidationError('expectedVersion must be an integer >= 1');
}

/** `replaceMany`'s items, checked (ids differ, versions valid), each with the body it stores. */
export function prepareReplaceMany<I extends { id: string; expectedVersion: number; next: object }>(
  items: ReadonlyArray<I>,
): Array<I & { body: Body }> {
  if (new Set(items.map((i) => i.id)).size !== items.length) throw new ValidationError('replaceMany: ids must differ');
  for (const i of items) assertVersion(i.expectedVersion);
  return items.map((i) => ({ ...i, body: toBody(i.next) }));
}

export function duplicateKey(collection: string, cause: unknown, detail?: string): ConflictError {
  const suffix = detail ? ` (${detail})` : '';
  return new ConflictError(`duplicate key in ${collection}${suffix}`, { code: 'DUPLICATE_KEY', cause });
}

export function versionConflict(collection: string, id: string, expected: number, actual: number): ConflictError {
  return new ConflictError(`${collection}/${id} is at version ${actual}, expected ${expected}`, {
    code: 'VERSION_CONFLICT',
  });
}

/** Whether `err` is a lost compare-and-set: another writer moved the version first. */
export function isVersionConflict(err: unknown): boolean {
  return isDomainError(err) && err.code === 'VERSION_CONFLICT';
}

export function notFound(collection: string, id: string): NotFoundError {
  return new NotFoundError(`${collection}/${id} not found`);
}

/** Enough for any single caller to win against 20 concurrent writers of the same document. */
export const DEFAULT_UPDATE_RETRIES = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Read-modify-CAS loop shared by both adapters. Each conflict means another writer committed
 * after our read, so with N concurrent writers a caller loses at most N-1 times; a small random
 * backoff keeps the losers from colliding again in lockstep.
 */
export async function updateWithRetry<T extends StoredDoc>(
  collection: Collection<T>,
  id: string,
  mutate: (current: T) => Omit<T, 'id' | 'version'> | null,
  retries: number = DEFAULT_UPDATE_RETRIES,
  held?: T,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const tentative = attempt === 0 && held !== undefined && held.id === id ? held : undefined;
    const current = tentative ?? (await collection.get(id));
    if (current === null) throw notFound(collection.name, id);
    const next = mutate(current);
    // Leaving it unchanged is only decided on a fresh read; a held copy may be stale.
    if (next === null && tentative) continue;
    if (next === null) return current;
    try {
      return await collection.replace(id, current.version, next);
    } catch (err) {
      if (!isVersionConflict(err) || attempt >= retries) throw err;
      await sleep(Math.random() * Math.min(50, 2 ** attempt));
    }
  }
}

const NUMBERED_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks a numbering's field, key and start (bad ones are programming errors, thrown as ValidationError). */
export function assertNumbering<F extends string>(numbering: Numbering<F>): Required<Numbering<F>> {
  const { field, key, startAt = 1 } = numbering;
  if (!NUMBERED_FIELD.test(field) || field === 'id' || field === 'version') {
    throw new ValidationError(`numbered field must be a plain top-level field name, not ${JSON.stringify(field)}`);
  }
  if (typeof key !== 'string' || key.length === 0) throw new ValidationError('sequence key must be a non-empty string');
  if (!Number.isSafeInteger(startAt)) throw new ValidationError('startAt must be an integer');
  return { field, key, startAt };
}

/** `insertNumbered` in two steps, for adapters and wrappers that cannot take the number in the insert. */
export async function insertNumberedInSteps<T extends StoredDoc, F extends keyof T & string>(
  tx: Pick<TxScope, 'collection' | 'nextSequence'>,
  collection: string,
  doc: Omit<NewDoc<T>, F> & { id?: string },
  numbering: Numbering<F>,
): Promise<string> {
  const { field, key, startAt } = assertNumbering(numbering);
  const value = await tx.nextSequence(key, startAt);
  // The one field the type leaves out, set to the counter's value.
  const whole = { ...doc, [field]: value } as NewDoc<T>;
  const stored = await tx.collection<T>(collection).insert(whole);
  return stored.id;
}
