import { ValidationError } from '@paymesh/core';
import type { TaxRateListQuery, TaxRatePage } from '@paymesh/contracts';
import type { Filter } from '@paymesh/store';
import { isCalendarDate, rateRecordOf, type TaxRateDoc } from '../domain/tax-rate-doc';
import { TAX_RATES } from '../store/collections';
import { ensureBook } from './book';
import type { OrgKey, TaxDeps } from './deps';

/** One page of the book's rates (seeding the book on first use), sorted by country, code, validFrom. */
export async function listTaxRates(deps: TaxDeps, key: OrgKey, q: TaxRateListQuery): Promise<TaxRatePage> {
  const filter: Filter = { organizationId: key.organizationId, mode: key.mode };
  if (q.country !== undefined) filter.country = q.country;
  if (q.rateType !== undefined) filter.rateType = q.rateType;
  if (q.managed !== undefined) filter.managed = q.managed;
  if (q.code !== undefined) filter.code = q.code;
  if (q.validOn !== undefined) {
    if (!isCalendarDate(q.validOn))
      throw new ValidationError(`validOn: ${q.validOn} is not a calendar date`, { field: 'validOn' });
    filter.validFrom = { $lte: q.validOn };
    filter.validUntil = { $gt: q.validOn };
  }
  await ensureBook(deps, key);
  const page = await deps.store
    .collection<TaxRateDoc>(TAX_RATES)
    .find(filter, { sort: { country: 1, code: 1, validFrom: 1 }, page: q.page, limit: q.limit, total: true });
  return { items: page.items.map(rateRecordOf), total: page.total, page: page.page, limit: page.limit };
}
