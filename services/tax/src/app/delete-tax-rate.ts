import { NotFoundError } from '@paymesh/core';
import type { TaxRateDoc } from '../domain/tax-rate-doc';
import { TAX_RATES } from '../store/collections';
import { writeBook } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { ownRate, recordId } from './tax-rate-checks';

/** Deletes one rate (a managed one comes back with replace-defaults). */
export async function deleteTaxRate(deps: TaxDeps, key: OrgKey, id: string): Promise<{ id: string; deleted: true }> {
  recordId(id);
  // An unknown id is answered without touching (or seeding) the book.
  await ownRate(deps.store.collection<TaxRateDoc>(TAX_RATES), key, id);
  await writeBook(deps, key, async (tx) => {
    const rates = tx.collection<TaxRateDoc>(TAX_RATES);
    await ownRate(rates, key, id);
    if (!(await rates.delete(id))) throw new NotFoundError('tax rate not found');
  });
  deps.logger.info({ organizationId: key.organizationId, mode: key.mode, rateId: id }, 'tax rate deleted');
  return { id, deleted: true };
}
