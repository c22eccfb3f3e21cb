import type { TaxRateDoc } from '../domain/tax-rate-doc';
import { TAX_RATES } from '../store/collections';
import { writeBook } from './book';
import type { OrgKey, TaxDeps } from './deps';

/**
 * Deletes every rate of the organization and data mode, managed and custom. The book stays seeded:
 * it remains empty until replace-defaults brings the managed rates back.
 */
export async function deleteAllTaxRates(deps: TaxDeps, key: OrgKey): Promise<{ deleted: number }> {
  const deleted = await writeBook(deps, key, (tx) =>
    tx.collection<TaxRateDoc>(TAX_RATES).deleteMany({ organizationId: key.organizationId, mode: key.mode }),
  );
  deps.logger.warn({ organizationId: key.organizationId, mode: key.mode, deleted }, 'all tax rates deleted');
  return { deleted };
}
