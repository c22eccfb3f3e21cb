/**
 * Registered VAT numbers the sandbox starts with (and returns to on reset). The companies are
 * fictional; the numbers pass their member state's check-digit rules so that callers which
 * validate the format first (as the tax service does) reach the sandbox with them.
 */
export interface Company {
  countryCode: string;
  vatNumber: string;
  name: string;
  address: string;
}

export const SEED_COMPANIES: readonly Company[] = [
  {
    countryCode: 'FR',
    vatNumber: '47759777570',
    name: 'ATELIER LUMIERE SARL',
    address: '12 RUE DES LILAS\n69003 LYON',
  },
  {
    countryCode: 'NL',
    vatNumber: '769350665B01',
    name: 'POLDERWERK B.V.',
    address: 'KEIZERSGRACHT 00100\n1015CV AMSTERDAM',
  },
  {
    countryCode: 'DE',
    vatNumber: '321571435',
    name: 'Nordlicht Software GmbH',
    address: 'Hafenstrasse 7\n20457 Hamburg',
  },
  {
    countryCode: 'AT',
    vatNumber: 'U31989140',
    name: 'Alpenblick Handels GmbH',
    address: 'Mariahilfer Strasse 50\nAT-1070 Wien',
  },
];

/**
 * Member states whose register does not disclose name and address through VIES: the service
 * answers `---` for both (Germany does so for every check).
 */
export const MASKING_COUNTRIES: ReadonlySet<string> = new Set(['DE']);

/** Country codes VIES accepts: the 27 member states (Greece as EL) and Northern Ireland (XI). */
export const VIES_COUNTRY_CODES: ReadonlySet<string> = new Set([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'EL',
  'ES',
  'FI',
  'FR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
  'XI',
]);
