import type { TaxRateRecord, TaxRateUpdate } from '@paymesh/contracts';
import {
  rateDocBody,
  rateRecordOf,
  validateRateFields,
  type TaxRateDoc,
  type TaxRateFields,
} from '../domain/tax-rate-doc';
import { updateBookRecord } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { assertRateFits, RATE_RECORDS } from './tax-rate-checks';

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
  const doc = await updateBookRecord(deps, key, id, patch, RATE_RECORDS, {
    fields: (cur) => validateRateFields(merged(cur, patch)),
    fits: assertRateFits,
    body: rateDocBody,
  });
  return rateRecordOf(doc);
}
