import { NotFoundError } from '@paymesh/core';
import type { EcbRates, EcbRatesQuery } from '@paymesh/contracts';
import { gapMessage, type EcbRateDoc } from '../domain/ecb-rates';
import { ECB_RATES } from '../store/collections';
import type { TaxDeps } from './deps';
import { findEcbPublication } from './find-ecb-publication';

/**
 * The ECB publication reports convert figures of `date` at (the day, or the next publication
 * day), or the latest kept when no date is given; NotFoundError saying why when there is none.
 */
export async function getEcbRates(deps: Pick<TaxDeps, 'store' | 'clock'>, query: EcbRatesQuery): Promise<EcbRates> {
  const col = deps.store.collection<EcbRateDoc>(ECB_RATES);
  if (query.date === undefined) {
    const latest = await col.findOne({}, { sort: { date: -1 } });
    if (!latest) throw new NotFoundError('no ECB reference rates are kept yet (none fetched)');
    return view(null, latest);
  }
  const found = await findEcbPublication(deps, query.date);
  if (found.kind !== 'published') throw new NotFoundError(gapMessage(found));
  return view(query.date, found.publication);
}

const view = (date: string | null, doc: EcbRateDoc): EcbRates => ({
  date,
  rateDate: doc.date,
  rates: doc.rates,
  fetchedAt: doc.fetchedAt,
  updatedAt: doc.updatedAt,
});
