import { checkVAT, countries } from 'jsvat-next';

/** The VAT prefix of a country: Greece uses EL. */
export function vatPrefixOf(country: string): string {
  return country === 'GR' ? 'EL' : country;
}

/** Whether VAT IDs of `country` have format and check-digit rules here (from jsvat-next). */
export function hasVatRules(country: string): boolean {
  return countries.some((c) => c.codes[0] === country);
}

/**
 * Whether `vatId` (compact, upper case, with its prefix) is a VAT ID of `country` with a valid
 * format and check digits. Format and check-digit rules come from jsvat-next.
 */
export function isEuVatIdOf(vatId: string, country: string): boolean {
  if (!vatId.startsWith(vatPrefixOf(country))) return false;
  const result = checkVAT(vatId, countries);
  return result.isValid && result.country?.isoCode.short === country;
}
