import { ValidationError } from '@paymesh/core';
import { normalizeCountry } from './iso-codes';

/**
 * Where the goods of a checkout go: the merchant's (checkout create) or the buyer's (transaction
 * create, tax preview). Its country is the place of supply of `goods` and `shipping` lines; the
 * other fields are kept for the record only. Optional fields are null when not given.
 */
export interface ShippingAddress {
  country: string;
  name: string | null;
  line1: string | null;
  city: string | null;
  postalCode: string | null;
}

export type ShippingAddressInput = Partial<Record<keyof ShippingAddress, string | null | undefined>>;

/** Length limits, the billing address's. */
const MAX: Record<Exclude<keyof ShippingAddress, 'country'>, number> = {
  name: 200,
  line1: 200,
  city: 100,
  postalCode: 20,
};

function optional(input: ShippingAddressInput, key: keyof typeof MAX, prefix: string): string | null {
  const v = (input[key] ?? '').trim();
  if (v.length > MAX[key])
    throw new ValidationError(`${prefix}.${key} must be at most ${MAX[key]} characters`, { field: `${prefix}.${key}` });
  return v === '' ? null : v;
}

/**
 * Validates a shipping address: `country` required (ISO 3166-1 alpha-2, upper-cased); `name`,
 * `line1`, `city` and `postalCode` optional with the billing address's limits.
 */
export function validateShippingAddress(input: ShippingAddressInput, prefix = 'shippingAddress'): ShippingAddress {
  const raw = (input.country ?? '').trim();
  if (raw === '') throw new ValidationError(`${prefix}.country is required`, { field: `${prefix}.country` });
  const country = normalizeCountry(raw);
  if (!country)
    throw new ValidationError(`${prefix}.country must be a two-letter ISO 3166-1 country code`, {
      field: `${prefix}.country`,
    });
  return {
    country,
    name: optional(input, 'name', prefix),
    line1: optional(input, 'line1', prefix),
    city: optional(input, 'city', prefix),
    postalCode: optional(input, 'postalCode', prefix),
  };
}

/** An optional shipping address: absent (undefined or null) stays null. */
export function validateOptionalShippingAddress(
  input: ShippingAddressInput | null | undefined,
  prefix = 'shippingAddress',
): ShippingAddress | null {
  return input ? validateShippingAddress(input, prefix) : null;
}

/**
 * The shipping address a buyer's payment is taxed with: the buyer's (given at transaction create
 * or in the tax preview) wins over the merchant's on the checkout; null when neither gave one.
 */
export function effectiveShippingAddress(
  buyer: ShippingAddress | null,
  checkout: ShippingAddress | null | undefined,
): ShippingAddress | null {
  return buyer ?? checkout ?? null;
}
