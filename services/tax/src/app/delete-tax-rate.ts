import type { TaxRateDoc } from '../domain/tax-rate-doc';
import { TAX_RATES } from '../store/collections';
import { deleteBookRecord } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { ownRate } from './tax-rate-checks';

/** Deletes one rate (a managed one comes back with replace-defaults). */
export async function deleteTaxRate(deps: TaxDeps, key: OrgKey, id: string): Promise<{ id: string; deleted: true }> {
  return deleteBookRecord<TaxRateDoc>(deps, key, id, {
    collection: TAX_RATES,
    own: ownRate,
    noun: 'tax rate',
    logField: 'rateId',
  });
}
