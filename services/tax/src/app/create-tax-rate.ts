import type { TaxRateCreate, TaxRateRecord } from '@paymesh/contracts';
import { rateDocBody, rateRecordOf, validateRateFields, type TaxRateDoc } from '../domain/tax-rate-doc';
import { TAX_RATES } from '../store/collections';
import { writeBook } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { assertRateFits } from './tax-rate-checks';

/** Adds a custom rate (never touched by replace-defaults). */
export async function createTaxRate(deps: TaxDeps, key: OrgKey, input: TaxRateCreate): Promise<TaxRateRecord> {
  const fields = validateRateFields({ ...input, source: null });
  const doc = await writeBook(deps, key, async (tx, now) => {
    const rates = tx.collection<TaxRateDoc>(TAX_RATES);
    await assertRateFits(rates, key, fields);
    return rates.insert(rateDocBody(key, fields, { managed: false, defaultKey: null, createdAt: now, updatedAt: now }));
  });
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, rateId: doc.id, code: doc.code, validFrom: doc.validFrom },
    'tax rate created',
  );
  return rateRecordOf(doc);
}
