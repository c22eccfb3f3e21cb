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
}

export type BillingAddressInput = Partial<Record<keyof BillingAddress, string | undefined>>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether a string looks like an e-mail address (deliverability is the provider's concern). */
export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

function text(input: BillingAddressInput, key: keyof BillingAddress, max: number, required: boolean, prefix: string): string {
  const v = (input[key] ?? '').trim();
  if (required && v === '') throw new ValidationError(`${prefix}.${key} is required`, { field: `${prefix}.${key}` });
  if (v.length > max) throw new ValidationError(`${prefix}.${key} must be at most ${max} characters`, { field: `${prefix}.${key}` });
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
  if (!isEmail(email)) throw new ValidationError(`${prefix}.email must be an e-mail address`, { field: `${prefix}.email` });
  const line1 = text(input, 'line1', 200, false, prefix);
  const city = text(input, 'city', 100, false, prefix);
  const postalCode = text(input, 'postalCode', 20, false, prefix);
  const rawCountry = text(input, 'country', 64, true, prefix);
  const country = normalizeCountry(rawCountry);
  if (!country) {
    throw new ValidationError(`${prefix}.country must be a two-letter ISO 3166-1 country code`, { field: `${prefix}.country` });
  }
  return { name, email, line1, city, postalCode, country };
}
