import { createHash } from 'node:crypto';
import type { StoredDoc } from '@paymesh/store';
import { shiftDay } from './reports/period';

/**
 * The ECB's euro foreign exchange reference rates as the tax service keeps them, and the rule the
 * OSS return converts by (Art. 366 / 369h of the VAT Directive): the rate published for the last
 * day of the period or, when there is no publication that day, for the next day with one.
 */

/** One publication day of the ECB, as stored (one document per day, unique by `date`). */
export interface EcbRateDoc extends StoredDoc {
  /** Publication day `YYYY-MM-DD`. */
  date: string;
  /** Units of the currency per 1 EUR, by three-letter code. */
  rates: Record<string, number>;
  /** The file the rates were read from. */
  source: string;
  /** When the day was first stored, and when its rates last changed (the ECB very rarely corrects one). */
  fetchedAt: string;
  updatedAt: string;
}

/** Every replica derives the same id for a day, so their writes of the same day meet on it. */
export const ecbRateId = (date: string): string =>
  createHash('sha256').update(`ecb-rate|${date}`).digest('hex').slice(0, 24);

/**
 * Days looked ahead for the next publication. The ECB does not publish on weekends and TARGET
 * closing days; the longest such run is four days (Good Friday to Easter Monday). A publication
 * further away is not the next one but a sign of days never fetched.
 */
export const PUBLICATION_LOOKAHEAD_DAYS = 7;

/** The days whose publication may be the one for `day`: `day` and the days after it up to the look-ahead. */
export const candidateDays = (day: string): string[] =>
  Array.from({ length: PUBLICATION_LOOKAHEAD_DAYS + 1 }, (_, i) => shiftDay(day, i));

export interface EcbDay {
  date: string;
  rates: Readonly<Record<string, number>>;
}

/**
 * Which publication converts figures of `day`:
 * - `published`: the first kept publication on or after `day` (within the look-ahead);
 * - `not_published`: none kept on or after `day` yet: the day is today or later, or the newest kept
 *   publication is older (it comes with a later fetch);
 * - `not_kept`: the service holds no publication for that time (before it started fetching, or no
 *   fetch has succeeded yet for a past day).
 */
export type EcbDayLookup<P extends EcbDay = EcbDay> = { kind: 'published'; day: string; publication: P } | EcbDayGap;

export type EcbDayGap =
  | { kind: 'not_published'; day: string; latest: string | null }
  | { kind: 'not_kept'; day: string; latest: string | null };

/** Why there is no publication for a day, in words. */
export function gapMessage(gap: EcbDayGap): string {
  if (gap.kind === 'not_published')
    return `the ECB reference rate for ${gap.day} (or the next publication day) is not published yet${gap.latest ? `; the latest kept is of ${gap.latest}` : ''}`;
  return gap.latest
    ? `no ECB reference rates are kept for ${gap.day} (the tax service keeps the days it fetched; the latest is of ${gap.latest})`
    : `no ECB reference rates are kept for ${gap.day} (none fetched yet)`;
}

/**
 * @param kept publications kept for the candidate days of `day` (others are ignored)
 * @param latest the newest publication day kept, if any
 * @param today the current day (UTC)
 */
export function publicationFor<P extends EcbDay>(
  day: string,
  kept: readonly P[],
  latest: string | null,
  today: string,
): EcbDayLookup<P> {
  const last = shiftDay(day, PUBLICATION_LOOKAHEAD_DAYS);
  const next = kept.filter((p) => p.date >= day && p.date <= last).sort((a, b) => a.date.localeCompare(b.date))[0];
  if (next) return { kind: 'published', day, publication: next };
  if (day >= today || (latest !== null && latest < day)) return { kind: 'not_published', day, latest };
  return { kind: 'not_kept', day, latest };
}
