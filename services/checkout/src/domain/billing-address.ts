import { ValidationError } from '@paymesh/core';
import { normalizeCountry } from './iso-codes';

/** Billing address of the buyer (create-transaction, handoff). */
export interface BillingAddress {
  name: string;
  email: string;
  line1: string;
  city: string;
  postalCode: string;
  country: string;
  /** Buyer VAT ID (normalized), when given; the tax service judges whether it is valid. */
  vatId?: string;
}

export type BillingAddressInput = Partial<Record<keyof BillingAddress, string | undefined>>;

/** The part of a buyer's address tax needs (tax preview). */
export interface TaxAddress {
  country: string;
  postcode: string | undefined;
  vatId: string | undefined;
}

const VAT_ID_INPUT = /^[A-Za-z0-9 .-]{1,30}$/;
const VAT_ID = /^[A-Z0-9]{2,20}$/;

/**
 * A buyer VAT ID as entered, normalized: spaces, dots and hyphens dropped, upper-cased. Only the
 * length and characters are checked here (format, checksum and VIES are the tax service's);
 * empty means not given.
 */
export function normalizeVatId(raw: string | undefined, field: string): string | undefined {
  const value = (raw ?? '').trim();
  if (value === '') return undefined;
  const normalized = value.replace(/[ .-]/g, '').toUpperCase();
  if (!VAT_ID_INPUT.test(value) || !VAT_ID.test(normalized)) {
    throw new ValidationError(
      `${field} must be a VAT ID of 2 to 20 letters and digits (spaces, dots and hyphens are ignored)`,
      { field },
    );
  }
  return normalized;
}

function countryOf(raw: string, field: string): string {
  const country = normalizeCountry(raw);
  if (!country) throw new ValidationError(`${field} must be a two-letter ISO 3166-1 country code`, { field });
  return country;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether a string looks like an e-mail address (deliverability is the provider's concern). */
export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

function text(
  input: BillingAddressInput,
  key: keyof BillingAddress,
  max: number,
  required: boolean,
  prefix: string,
): string {
  const v = (input[key] ?? '').trim();
  if (required && v === '') throw new ValidationError(`${prefix}.${key} is required`, { field: `${prefix}.${key}` });
  if (v.length > max)
    throw new ValidationError(`${prefix}.${key} must be at most ${max} characters`, { field: `${prefix}.${key}` });
  return v;
}

/**
 * Validates a billing address. `name`, `email` and `country` are required (payment and tax need
 * them); `line1`, `city` and `postalCode` may be empty (card payments of digital services do not
 * need them). The country is upper-cased and must be an ISO 3166-1 alpha-2 code.
 */
export function validateBillingAddress(input: BillingAddressInput, prefix = 'billingAddress'): BillingAddress {
  const name = text(input, 'name', 200, true, prefix);
  const email = text(input, 'email', 254, true, prefix);
  if (!isEmail(email))
    throw new ValidationError(`${prefix}.email must be an e-mail address`, { field: `${prefix}.email` });
  const line1 = text(input, 'line1', 200, false, prefix);
  const city = text(input, 'city', 100, false, prefix);
  const postalCode = text(input, 'postalCode', 20, false, prefix);
  const country = countryOf(text(input, 'country', 64, true, prefix), `${prefix}.country`);
  const vatId = normalizeVatId(input.vatId, `${prefix}.vatId`);
  return { name, email, line1, city, postalCode, country, ...(vatId ? { vatId } : {}) };
}

/** Validates the address of a tax preview: `country` required (ISO 3166-1 alpha-2), `postcode` and `vatId` optional. */
export function validateTaxAddress(
  input: { country?: string | undefined; postcode?: string | undefined; vatId?: string | undefined },
  prefix = 'billingAddress',
): TaxAddress {
  const raw = (input.country ?? '').trim();
  if (raw === '') throw new ValidationError(`${prefix}.country is required`, { field: `${prefix}.country` });
  const postcode = (input.postcode ?? '').trim();
  if (postcode.length > 20)
    throw new ValidationError(`${prefix}.postcode must be at most 20 characters`, { field: `${prefix}.postcode` });
  return {
    country: countryOf(raw, `${prefix}.country`),
    postcode: postcode || undefined,
    vatId: normalizeVatId(input.vatId, `${prefix}.vatId`),
  };
}
