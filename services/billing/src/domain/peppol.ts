import { isValid as isValidGtin } from 'gtin';
import { compute as mod97 } from 'iso-7064';
import { isEuVatIdOf } from './vat-number';

/** Peppol participant identifier schemes (ISO 6523 ICD) a client's routing address may use. */
export const PEPPOL_SCHEMES = ['9930', '0088', '0204'] as const;
export type PeppolScheme = (typeof PEPPOL_SCHEMES)[number];

export interface PeppolAddressInput {
  schemeId: string;
  value: string;
  /** The buyer (for 0204: the public-sector recipient) confirmed this exact address. */
  confirmedByBuyer: boolean;
}

/** A rule the routing address breaks: the input field it concerns and one sentence. */
export interface PeppolProblem {
  field: string;
  message: string;
}

/** Canonical form of a routing value: trimmed; letters upper-cased for 9930 and 0204. */
export function normalizePeppolValue(schemeId: string, value: string): string {
  const trimmed = value.trim();
  if (schemeId === '9930') return trimmed.replace(/[\s.-]/g, '').toUpperCase();
  if (schemeId === '0204') return trimmed.toUpperCase();
  return trimmed;
}

/** GS1 Global Location Number: 13 digits, the last a GS1 mod-10 check digit. */
export function isGln(value: string): boolean {
  return /^\d{13}$/.test(value) && isValidGtin(value);
}

/**
 * Leitweg-ID (KoSIT format): coarse address of 2 to 12 digits, an optional fine address of up to
 * 30 letters and digits, and 2 check digits, joined by dashes. The check digits are ISO 7064
 * MOD 97-10 over coarse and fine address (letters counted A=10 ... Z=35): the whole, check
 * digits included, leaves remainder 1.
 */
export function isLeitwegId(value: string): boolean {
  const match = /^(\d{2,12})(?:-([A-Za-z0-9]{1,30}))?-(\d{2})$/.exec(value);
  if (!match) return false;
  const [, coarse, fine = '', check] = match;
  return mod97(`${coarse}${fine.toUpperCase()}${check}`) === 1;
}

/**
 * Checks a client's Peppol routing address against its scheme's value format and the rule of
 * when it may be used: 9930 (German VAT number scheme) only for a German VAT ID the buyer
 * confirmed as its address; 0088 for a supplied GLN; 0204 only for a German public-sector
 * recipient that confirmed its Leitweg-ID. The address is never derived from the tax ID.
 */
export function peppolProblem(address: PeppolAddressInput, taxCountry: string | null): PeppolProblem | null {
  const field = 'taxInfo.peppolRoutingAddress';
  const value = normalizePeppolValue(address.schemeId, address.value);
  switch (address.schemeId) {
    case '9930':
      if (taxCountry !== 'DE')
        return {
          field: 'taxInfo.taxCountry',
          message: 'scheme 9930 is the German VAT number scheme: taxInfo.taxCountry must be DE',
        };
      if (!isEuVatIdOf(value, 'DE'))
        return {
          field: `${field}.value`,
          message: 'a 9930 address is a German VAT ID: DE followed by 9 digits with a valid check digit',
        };
      if (!address.confirmedByBuyer)
        return {
          field: `${field}.confirmedByBuyer`,
          message: 'use 9930 only when the buyer confirmed this exact address (confirmedByBuyer: true)',
        };
      return null;
    case '0088':
      if (!isGln(value))
        return {
          field: `${field}.value`,
          message: 'a 0088 address is a GS1 global location number: 13 digits with a valid check digit',
        };
      return null;
    case '0204':
      if (taxCountry !== 'DE')
        return {
          field: 'taxInfo.taxCountry',
          message: 'scheme 0204 (Leitweg-ID) is for German public-sector recipients: taxInfo.taxCountry must be DE',
        };
      if (!isLeitwegId(value)) {
        return {
          field: `${field}.value`,
          message:
            'a 0204 address is a Leitweg-ID: coarse address (2-12 digits), optional fine address, 2 check digits, joined by dashes, with valid check digits',
        };
      }
      if (!address.confirmedByBuyer) {
        return {
          field: `${field}.confirmedByBuyer`,
          message:
            'use 0204 only when the German public-sector recipient confirmed this Leitweg-ID (confirmedByBuyer: true)',
        };
      }
      return null;
    default:
      return { field: `${field}.schemeId`, message: `schemeId must be one of ${PEPPOL_SCHEMES.join(', ')}` };
  }
}
