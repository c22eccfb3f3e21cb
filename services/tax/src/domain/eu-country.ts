import { getName } from 'i18n-iso-countries';
import type { EuCountry } from '@paymesh/contracts';
import { isIsoCountry } from './country';
import { euCountryName, isEuMember, NORTHERN_IRELAND, vatPrefixOf } from './eu';

const GREECE = 'GR';
const GREECE_VAT = 'EL';

/**
 * Whether a country is an EU member state, with its VIES VAT prefix. Accepts ISO 3166-1 alpha-2
 * codes in any case, the VAT prefix EL for Greece, and XI (Northern Ireland: not a member state,
 * but in the EU VAT area for goods, so its traders have VIES-checkable XI numbers). Null for
 * anything else.
 */
export function euCountry(raw: string): EuCountry | null {
  const code = raw.trim().toUpperCase();
  if (code === NORTHERN_IRELAND) {
    return {
      countryCode: NORTHERN_IRELAND,
      euMember: false,
      euVatAreaForGoods: true,
      vatPrefix: NORTHERN_IRELAND,
      name: euCountryName(NORTHERN_IRELAND),
    };
  }
  const iso = code === GREECE_VAT ? GREECE : code;
  if (!isIsoCountry(iso)) return null;
  if (isEuMember(iso))
    return {
      countryCode: iso,
      euMember: true,
      euVatAreaForGoods: true,
      vatPrefix: vatPrefixOf(iso),
      name: euCountryName(iso),
    };
  return {
    countryCode: iso,
    euMember: false,
    euVatAreaForGoods: false,
    vatPrefix: null,
    name: getName(iso, 'en') ?? iso,
  };
}
