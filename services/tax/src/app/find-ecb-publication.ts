import { candidateDays, publicationFor, type EcbDayLookup, type EcbRateDoc } from '../domain/ecb-rates';
import { ECB_RATES } from '../store/collections';
import type { TaxDeps } from './deps';

/**
 * The ECB publication that converts figures of `day` (see publicationFor): one indexed read of the
 * day and the week after it, and, only when none is kept, one more for the newest day kept.
 */
export async function findEcbPublication(
  deps: Pick<TaxDeps, 'store' | 'clock'>,
  day: string,
): Promise<EcbDayLookup<EcbRateDoc>> {
  const col = deps.store.collection<EcbRateDoc>(ECB_RATES);
  const kept = (await col.find({ date: { $in: candidateDays(day) } })).items;
  const today = deps.clock.now().toISOString().slice(0, 10);
  const latest = kept.length > 0 ? null : ((await col.findOne({}, { sort: { date: -1 } }))?.date ?? null);
  return publicationFor(day, kept, latest, today);
}
