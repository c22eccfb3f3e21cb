import { ConflictError, ErrorCode, NotFoundError, ofTenant, requireObjectId } from '@paymesh/core';
import type { Collection, StoredDoc } from '@paymesh/store';
import { periodsOverlap, type TaxRateDoc, type TaxRateFields } from '../domain/tax-rate-doc';
import { TAX_RATES } from '../store/collections';
import type { BookRecordKind } from './book';
import type { OrgKey } from './deps';

/** A record id from a request: 24 hex digits, else a ValidationError. */
export function recordId(id: string): string {
  return requireObjectId(id, 'id');
}

/**
 * A kind of record of the book whose `own` answers the organization's record with the id; other
 * tenants' records are not found (`<noun> not found`).
 */
export function bookRecords<D extends StoredDoc & { organizationId: string; mode: string }>(
  collection: string,
  noun: string,
  logField: string,
): BookRecordKind<D> {
  return {
    collection,
    noun,
    logField,
    own: async (coll, key, id) => {
      const doc = await coll.get(recordId(id));
      if (!ofTenant(doc, key)) throw new NotFoundError(`${noun} not found`);
      return doc;
    },
  };
}

/** The book's rates, as its record reads, updates and deletes see them. */
export const RATE_RECORDS = bookRecords<TaxRateDoc>(TAX_RATES, 'tax rate', 'rateId');

/** The organization's rate with this id; other tenants' rates are not found. */
export const ownRate = RATE_RECORDS.own;

/**
 * A rate must not share its code and first day with another rate of the book (TAX_RATE_EXISTS),
 * nor be valid on a day another rate of the same code is (TAX_RATE_OVERLAP): the engine must find
 * one version of a code for any date. `selfId`: the rate being updated.
 */
export async function assertRateFits(
  rates: Collection<TaxRateDoc>,
  key: OrgKey,
  f: TaxRateFields,
  selfId?: string,
): Promise<void> {
  const { items } = await rates.find({ organizationId: key.organizationId, mode: key.mode, code: f.code });
  const others = items.filter((r) => r.id !== selfId);
  const same = others.find((r) => r.validFrom === f.validFrom);
  if (same) {
    throw new ConflictError(`a tax rate ${f.code} valid from ${f.validFrom} exists already (${same.id})`, {
      code: ErrorCode.TAX_RATE_EXISTS,
    });
  }
  const overlap = others.find((r) => periodsOverlap(r, f));
  if (overlap) {
    throw new ConflictError(
      `tax rate ${f.code} is already valid from ${overlap.validFrom} to ${overlap.validTo ?? 'open end'} (${overlap.id}); end that period first`,
      { code: ErrorCode.TAX_RATE_OVERLAP },
    );
  }
}
