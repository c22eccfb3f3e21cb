import type { NumberingLayout } from '@paymesh/contracts';

export type { NumberingLayout } from '@paymesh/contracts';

/** Default invoice layout: `INV-2026-00001`, restarting at 1 every calendar year. */
export const DEFAULT_INVOICE_LAYOUT: Readonly<NumberingLayout> = Object.freeze({
  prefix: 'INV',
  periodType: 'calendar',
  periodGranularity: 'year',
  fiscalYearStartMonth: 1,
  fiscalYearLabelMode: 'end_year',
  periodSeparator: 'dash',
  infix: '',
  sequenceDigits: 5,
  suffix: '',
  resetPolicy: 'calendar_year',
  startNumber: 1,
});

/** Default credit note layout: `CN-2026-00001`. */
export const DEFAULT_CREDIT_NOTE_LAYOUT: Readonly<NumberingLayout> = Object.freeze({
  ...DEFAULT_INVOICE_LAYOUT,
  prefix: 'CN',
});

interface DateParts {
  year: number;
  month: number;
  day: number;
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

function dayFormat(timeZone: string): Intl.DateTimeFormat {
  let f = dayFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(timeZone, f);
  }
  return f;
}

/** The canonical name of an IANA time zone (`europe/berlin` -> `Europe/Berlin`), or null when unknown. */
export function canonicalTimeZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The calendar day (`YYYY-MM-DD`) an instant falls on in the time zone. */
export function zonedDay(instant: Date, timeZone = 'UTC'): string {
  if (Number.isNaN(instant.getTime())) throw new RangeError('date is invalid');
  const parts = dayFormat(timeZone).formatToParts(instant);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** A document date: a calendar day `YYYY-MM-DD` (already local), or an instant read in a time zone. */
export type DocumentDate = string | Date;

function partsOf(date: DocumentDate, timeZone: string): DateParts {
  const day = typeof date === 'string' ? date : zonedDay(date, timeZone);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) throw new RangeError(`date must be YYYY-MM-DD, got ${day}`);
  return { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
}

/** First and last calendar year of the fiscal year containing the date. */
function fiscalYearSpan(parts: DateParts, startMonth: number): { startYear: number; endYear: number } {
  if (startMonth === 1) return { startYear: parts.year, endYear: parts.year };
  const startYear = parts.month >= startMonth ? parts.year : parts.year - 1;
  return { startYear, endYear: startYear + 1 };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** The period part of a number (`2026`, `2026-11`, `20261105`, ...) or '' for periodType none. */
export function formatPeriod(layout: NumberingLayout, date: DocumentDate, timeZone = 'UTC'): string {
  if (layout.periodType === 'none') return '';
  const parts = partsOf(date, timeZone);
  let year = parts.year;
  if (layout.periodType === 'fiscal') {
    const span = fiscalYearSpan(parts, layout.fiscalYearStartMonth);
    year = layout.fiscalYearLabelMode === 'start_year' ? span.startYear : span.endYear;
  }
  const pieces = [String(year)];
  if (layout.periodGranularity !== 'year') pieces.push(pad(parts.month, 2));
  if (layout.periodGranularity === 'year_month_day') pieces.push(pad(parts.day, 2));
  return pieces.join(layout.periodSeparator === 'dash' ? '-' : '');
}

/**
 * Formats a document number: the non-empty parts prefix, period, infix, sequence (zero-padded to
 * `sequenceDigits`, never truncated) and suffix, joined by `-`. The period is taken from the
 * document's calendar day: a `YYYY-MM-DD` day as it is, an instant read in `timeZone` (default
 * UTC); the month shown under a fiscal period is the calendar month.
 *
 * @example formatDocumentNumber({ prefix: 'INV', periodType: 'calendar', periodGranularity: 'year_month',
 *   periodSeparator: 'dash', sequenceDigits: 5, ... }, new Date('2026-11-05'), 42) === 'INV-2026-11-00042'
 */
export function formatDocumentNumber(
  layout: NumberingLayout,
  date: DocumentDate,
  sequence: number,
  timeZone = 'UTC',
): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1)
    throw new RangeError(`sequence must be a positive integer, got ${sequence}`);
  if (date instanceof Date && Number.isNaN(date.getTime())) throw new RangeError('date is invalid');
  return [
    layout.prefix,
    formatPeriod(layout, date, timeZone),
    layout.infix,
    pad(sequence, layout.sequenceDigits),
    layout.suffix,
  ]
    .filter((part) => part.length > 0)
    .join('-');
}

/**
 * The counter bucket a number issued on `date` draws from: one bucket for `never`, one per
 * calendar year or per fiscal year (named by its end year). Each bucket starts at `startNumber`.
 */
export function counterPeriodKey(layout: NumberingLayout, date: DocumentDate, timeZone = 'UTC'): string {
  const parts = partsOf(date, timeZone);
  switch (layout.resetPolicy) {
    case 'never':
      return 'all';
    case 'calendar_year':
      return `cy${parts.year}`;
    case 'fiscal_year':
      return `fy${fiscalYearSpan(parts, layout.fiscalYearStartMonth).endYear}`;
  }
}

/**
 * Why the layout could issue the same number twice, or null when it cannot. A counter that resets
 * must be told apart by the visible period: restarting every year while the number shows no
 * year (or shows a different kind of year without the month) repeats numbers.
 */
export function layoutAmbiguity(layout: NumberingLayout): string | null {
  if (layout.resetPolicy === 'never') return null;
  if (layout.periodType === 'none') {
    return `resetPolicy ${layout.resetPolicy} repeats numbers unless the number shows the period (periodType calendar or fiscal), or use resetPolicy never`;
  }
  const wanted = layout.resetPolicy === 'calendar_year' ? 'calendar' : 'fiscal';
  if (layout.periodType === wanted) return null;
  if (layout.periodGranularity !== 'year' || layout.fiscalYearStartMonth === 1) return null;
  return `resetPolicy ${layout.resetPolicy} with a ${layout.periodType} year label repeats numbers when the fiscal year does not start in January; use periodType ${wanted}, show the month (periodGranularity year_month), or use resetPolicy never`;
}

/**
 * What tells one counter from another: everything in the layout that shapes the visible number
 * apart from the sequence, so two layouts share a counter exactly when they could collide.
 */
export function layoutIdentity(layout: NumberingLayout): string {
  return [
    layout.prefix,
    layout.periodType,
    layout.periodGranularity,
    layout.periodType === 'fiscal' ? `${layout.fiscalYearStartMonth}/${layout.fiscalYearLabelMode}` : '',
    layout.periodSeparator,
    layout.infix,
    layout.suffix,
    layout.resetPolicy,
  ].join('|');
}
