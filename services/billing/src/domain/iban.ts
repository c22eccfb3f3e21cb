import { createRequire } from 'node:module';
import type * as Ibantools from 'ibantools' with { 'resolution-mode': 'import' };

// ibantools ships a CommonJS build, but its type declarations are marked as ES module ones,
// which a CommonJS TypeScript file may only import as types.
const { electronicFormatIBAN, validateIBAN, ValidationErrorsIBAN }: typeof Ibantools =
  createRequire(__filename)('ibantools');

/** Result of {@link normalizeIban}: the IBAN in electronic format, or why it is not one. */
export type IbanCheck = { ok: true; iban: string } | { ok: false; reason: string };

/**
 * Normalizes an IBAN as typed by a person (spaces, lower case) to its electronic format and checks
 * the country, the country-specific length and BBAN structure, and the ISO 7064 mod-97 checksum.
 */
export function normalizeIban(input: string): IbanCheck {
  const iban = electronicFormatIBAN(input) ?? '';
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{1,30}$/.test(iban)) {
    return { ok: false, reason: 'is not an IBAN (expected a country code, 2 check digits and the account number)' };
  }
  const result = validateIBAN(iban);
  if (result.valid) return { ok: true, iban };
  const codes = new Set(result.errorCodes);
  if (codes.has(ValidationErrorsIBAN.NoIBANCountry))
    return { ok: false, reason: `has an unknown IBAN country ${iban.slice(0, 2)}` };
  if (codes.has(ValidationErrorsIBAN.WrongBBANLength))
    return { ok: false, reason: `has the wrong length for ${iban.slice(0, 2)}` };
  if (codes.has(ValidationErrorsIBAN.WrongIBANChecksum) || codes.has(ValidationErrorsIBAN.ChecksumNotNumber)) {
    return { ok: false, reason: 'has a wrong checksum (check digits do not match)' };
  }
  return { ok: false, reason: `is not a valid ${iban.slice(0, 2)} IBAN (account number format)` };
}

/**
 * Masked IBAN for display: country code, check digits and the last four characters stay visible,
 * grouped by four like a printed IBAN (`DE89 **** **** **** **30 00`).
 */
export function maskIban(iban: string): string {
  const masked = iban
    .split('')
    .map((ch, i) => (i < 4 || i >= iban.length - 4 ? ch : '*'))
    .join('');
  return masked.replace(/(.{4})(?=.)/g, '$1 ');
}
