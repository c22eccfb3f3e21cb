import { getAlpha2Codes } from 'i18n-iso-countries';

const CODES: ReadonlySet<string> = new Set(Object.keys(getAlpha2Codes()));

/** Whether `code` is an assigned ISO 3166-1 alpha-2 country code (upper case). */
export function isIsoCountry(code: string): boolean {
  return CODES.has(code);
}
