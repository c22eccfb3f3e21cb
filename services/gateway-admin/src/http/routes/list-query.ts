import { z } from 'zod';
import { ValidationError, isObjectId } from '@paymesh/core';
import { text } from '@paymesh/http';

/** A query parameter given once (string) or repeated (array). */
export const multiParam = z.union([text(2000), z.array(text(200)).max(100)]).optional();

/**
 * Values of a list parameter accepted as `name[]` or `name`, each repeated or comma-separated
 * (`statuses[]=1&statuses[]=2`, `statuses=1,2`, `statuses=1&statuses=2`).
 */
export function listValues(...given: (string | string[] | undefined)[]): string[] {
  return given
    .flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** Transaction status codes from a list parameter; anything else is a 400 naming the parameter. */
export function parseStatuses(values: string[], field = 'statuses'): number[] {
  return [
    ...new Set(
      values.map((v) => {
        if (!/^-?\d+$/.test(v) || Number(v) < -2 || Number(v) > 4) {
          throw new ValidationError(`${field}: "${v}" is not a transaction status code (-2 to 4)`, { field });
        }
        return Number(v);
      }),
    ),
  ];
}

export function parseObjectIds(values: string[], field: string): string[] {
  for (const v of values) {
    if (!isObjectId(v)) throw new ValidationError(`${field}: "${v}" is not a 24-hex identifier`, { field });
  }
  return [...new Set(values)];
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

function parseBound(raw: string, field: 'startDate' | 'endDate'): string {
  // An unencoded `+` of an offset arrives as a space in query strings.
  const value = raw.trim().replace(/ (\d{2}:\d{2})$/, '+$1');
  const date = DATE_ONLY.exec(value);
  if (date) {
    const [, y, m, d] = date;
    const start = new Date(`${y}-${m}-${d}T00:00:00.000Z`);
    if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== value) {
      throw new ValidationError(`${field}: "${raw}" is not a valid date`, { field });
    }
    // Dates are whole UTC days; the end date is inclusive.
    return field === 'startDate' ? start.toISOString() : new Date(start.getTime() + 86_400_000 - 1).toISOString();
  }
  if (RFC3339.test(value) && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  throw new ValidationError(`${field} must be YYYY-MM-DD or an RFC 3339 timestamp`, { field });
}

/**
 * Inclusive `createdAt` bounds from `startDate`/`endDate` (YYYY-MM-DD as whole UTC days, the end
 * day included; or RFC 3339 instants, both included).
 */
export function parseDateRange(
  startDate: string | undefined,
  endDate: string | undefined,
): { createdFrom: string; createdTo: string } {
  const createdFrom = startDate ? parseBound(startDate, 'startDate') : '';
  const createdTo = endDate ? parseBound(endDate, 'endDate') : '';
  if (createdFrom && createdTo && createdFrom > createdTo) {
    throw new ValidationError('startDate must not be after endDate', { field: 'startDate' });
  }
  return { createdFrom, createdTo };
}
