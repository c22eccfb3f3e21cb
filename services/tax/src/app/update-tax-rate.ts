import { ValidationError } from '@paymesh/core';
import type { TaxRateRecord, TaxRateUpdate } from '@paymesh/contracts';
import {
  rateDocBody,
  rateRecordOf,
  validateRateFields,
  type TaxRateDoc,
  type TaxRateFields,
} from '../domain/tax-rate-doc';
import { TAX_RATES } from '../store/collections';
import { writeBook } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { assertRateFits, ownRate, recordId } from './tax-rate-checks';

/** The fields after a partial update: absent fields keep their value, null clears validTo or description. */
function merged(cur: TaxRateDoc, patch: TaxRateUpdate): TaxRateFields {
  return {
    code: patch.code ?? cur.code,
    country: patch.country ?? cur.country,
    rateType: patch.rateType ?? cur.rateType,
    percent: patch.percent ?? cur.percent,
    categories: patch.categories ?? cur.categories,
    validFrom: patch.validFrom ?? cur.validFrom,
    validTo: patch.validTo !== undefined ? patch.validTo : cur.validTo,
    source: cur.source,
    description: patch.description !== undefined ? patch.description : cur.description,
  };
}

/**
 * Partial update of a rate. Editing a managed default makes it the merchant's own (`managed:
 * false`): replace-defaults then leaves it as it is. It keeps its `source` as a reference.
 */
export async function updateTaxRate(
  deps: TaxDeps,
  key: OrgKey,
  id: string,
  patch: TaxRateUpdate,
): Promise<TaxRateRecord> {
  recordId(id);
  if (Object.keys(patch).length === 0) throw new ValidationError('body must change at least one field');
  // An unknown id is answered without touching (or seeding) the book.
  await ownRate(deps.store.collection<TaxRateDoc>(TAX_RATES), key, id);
  const doc = await writeBook(deps, key, async (tx, now) => {
    const rates = tx.collection<TaxRateDoc>(TAX_RATES);
    const cur = await ownRate(rates, key, id);
    const fields = validateRateFields(merged(cur, patch));
    await assertRateFits(rates, key, fields, cur.id);
    return rates.replace(
      cur.id,
      cur.version,
      rateDocBody(key, fields, {
        managed: false,
        defaultKey: cur.defaultKey,
        createdAt: cur.createdAt,
        updatedAt: now,
      }),
    );
  });
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, rateId: doc.id, fields: Object.keys(patch) },
    'tax rate updated',
  );
  return rateRecordOf(doc);
}
