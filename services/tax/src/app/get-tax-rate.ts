import type { TaxRateRecord } from '@paymesh/contracts';
import { rateRecordOf, type TaxRateDoc } from '../domain/tax-rate-doc';
import { TAX_RATES } from '../store/collections';
import type { OrgKey, TaxDeps } from './deps';
import { ownRate } from './tax-rate-checks';

/** One rate of the book. A book not yet seeded has no rates: no seeding needed to answer 404. */
export async function getTaxRate(deps: TaxDeps, key: OrgKey, id: string): Promise<TaxRateRecord> {
  return rateRecordOf(await ownRate(deps.store.collection<TaxRateDoc>(TAX_RATES), key, id));
}
