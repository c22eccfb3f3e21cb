/**
 * Publication days of the sandbox: the ECB publishes its reference rates on TARGET business days.
 * The sandbox keeps the fixed-date closing days (weekends, 1 January, 25 and 26 December); Good
 * Friday, Easter Monday and 1 May, TARGET's other closing days, are left out so the calendar stays
 * a plain rule. A test sets or hides any day through the controls.
 */

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a UTC instant. */
export const isoDay = (d: Date): string => d.toISOString().slice(0, 10);

export const shiftDay = (day: string, days: number): string =>
  isoDay(new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS));

export function isPublicationDay(day: string): boolean {
  const weekday = new Date(`${day}T00:00:00.000Z`).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  const md = day.slice(5);
  return md !== '01-01' && md !== '12-25' && md !== '12-26';
}

/** The last `count` publication days up to and including `today`, newest first. */
export function lastPublicationDays(today: string, count: number): string[] {
  const out: string[] = [];
  for (let d = today; out.length < count; d = shiftDay(d, -1)) if (isPublicationDay(d)) out.push(d);
  return out;
}
