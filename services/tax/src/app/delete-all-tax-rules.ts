import type { TaxRuleDoc } from '../domain/tax-rule-doc';
import { TAX_RULES } from '../store/collections';
import { writeBook } from './book';
import type { OrgKey, TaxDeps } from './deps';

/** Deletes every rule of the organization and data mode; the book stays seeded (populate-defaults restores the defaults). */
export async function deleteAllTaxRules(deps: TaxDeps, key: OrgKey): Promise<{ deleted: number }> {
  const deleted = await writeBook(deps, key, (tx) =>
    tx.collection<TaxRuleDoc>(TAX_RULES).deleteMany({ organizationId: key.organizationId, mode: key.mode }),
  );
  deps.logger.warn({ organizationId: key.organizationId, mode: key.mode, deleted }, 'all tax rules deleted');
  return { deleted };
}
