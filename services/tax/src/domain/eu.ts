import type { TaxItemType } from '@paymesh/contracts';

/** The 27 member states of the European Union (ISO 3166-1 alpha-2; Greece is GR) and their names. */
export const EU_MEMBER_STATES: Readonly<Record<string, string>> = Object.freeze({
  AT: 'Austria',
  BE: 'Belgium',
  BG: 'Bulgaria',
  CY: 'Cyprus',
  CZ: 'Czechia',
  DE: 'Germany',
  DK: 'Denmark',
  EE: 'Estonia',
  ES: 'Spain',
  FI: 'Finland',
  FR: 'France',
  GR: 'Greece',
  HR: 'Croatia',
  HU: 'Hungary',
  IE: 'Ireland',
  IT: 'Italy',
  LT: 'Lithuania',
  LU: 'Luxembourg',
  LV: 'Latvia',
  MT: 'Malta',
  NL: 'Netherlands',
  PL: 'Poland',
  PT: 'Portugal',
  RO: 'Romania',
  SE: 'Sweden',
  SI: 'Slovenia',
  SK: 'Slovakia',
});

/** Northern Ireland: inside the EU VAT area for goods only (Windsor Framework). */
export const NORTHERN_IRELAND = 'XI';

const MEMBERS: ReadonlySet<string> = new Set(Object.keys(EU_MEMBER_STATES));

/** Whether `cc` (upper case) is one of the 27 member states. XI is not: see `isInEuVatArea`. */
export function isEuMember(cc: string): boolean {
  return MEMBERS.has(cc);
}

/** Goods and their shipping move under EU VAT rules in Northern Ireland too. */
export function isGoodsLike(itemType: TaxItemType): boolean {
  return itemType === 'goods' || itemType === 'shipping';
}

/** Whether a supply of `itemType` to or from `cc` falls under EU VAT rules (member states; XI for goods). */
export function isInEuVatArea(cc: string, itemType: TaxItemType): boolean {
  return isEuMember(cc) || (cc === NORTHERN_IRELAND && isGoodsLike(itemType));
}

/** The prefix of a member state's VAT identification numbers: the ISO code, except Greece (EL). */
export function vatPrefixOf(cc: string): string {
  return cc === 'GR' ? 'EL' : cc;
}

/** English name of a member state (or Northern Ireland), else the code itself. */
export function euCountryName(cc: string): string {
  return cc === NORTHERN_IRELAND ? 'Northern Ireland' : (EU_MEMBER_STATES[cc] ?? cc);
}
