import { randomBytes } from 'node:crypto';
import { isObjectId, randomToken, ValidationError } from '@paymesh/core';
import type { StoredDoc } from '@paymesh/store';
import type { CheckoutInvoiceTax } from '@paymesh/contracts';
import { isEmail } from './billing-address';
import { validateIpnUrl, type IpnPolicy } from './ipn-target';
import { normalizeCurrency } from './iso-codes';
import { validateOptionalShippingAddress, type ShippingAddress, type ShippingAddressInput } from './shipping-address';
import type { Mode } from './site';

export const ITEM_TYPES = ['digital_service', 'goods', 'service', 'shipping'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

export interface LineItem {
  name: string;
  description: string | null;
  quantity: number;
  /** Minor units; negative for discount lines. */
  unitPrice: number;
  /** Percent 0..100; null: the tax engine decides. */
  vatRate: number | null;
  itemType: ItemType | null;
}

/**
 * Stored status. `expired` is written by the session sweep (app/expire-sessions.ts); between its
 * passes a pending session past `expiresAt` reads `expired` too (see {@link checkoutStatus}).
 */
export type StoredCheckoutStatus = 'pending' | 'completed' | 'expired';
export type CheckoutStatus = StoredCheckoutStatus;

export interface CheckoutDoc extends StoredDoc {
  organizationId: string;
  siteId: string;
  mode: Mode;
  sessionPublicId: string;
  shortCode: string;
  paymentUrl: string;
  status: StoredCheckoutStatus;
  amount: number;
  currency: string;
  email: string | null;
  returnUrl: string | null;
  cancelUrl: string | null;
  ipnUrl: string | null;
  externalReference: string | null;
  invoiceNumber: string | null;
  clientId: string | null;
  items: LineItem[];
  /**
   * The merchant's shipping address: its country is the destination of goods and shipping lines
   * unless the buyer gives one when paying. Null or absent (older documents): none.
   */
  shippingAddress?: ShippingAddress | null;
  metadata: Record<string, string>;
  expiresAt: string;
  completedTransactionId: string | null;
  /**
   * Whether a transaction of this session has ended failed or canceled, so a new attempt must first
   * cancel the provider payments of earlier ones (see create-transaction.ts). False from creation;
   * set by the transition that ends one. Absent on sessions stored before it: read as true.
   */
  attemptsEnded?: boolean;
  /** When the session sweep stored it as expired; absent before. */
  expiredAt?: string | null;
  /**
   * A checkout that pays an invoice: the tax allocated from the invoice's snapshot, stored by its
   * transactions instead of a new calculation. Null or absent: the tax engine decides.
   */
  invoiceTax?: CheckoutInvoiceTax | null;
  createdAt: string;
  updatedAt: string;
}

/** Limits of checkout input (documented in docs/admin-api.md). */
export const CHECKOUT_LIMITS = {
  maxAmount: 999_999_999_999,
  maxItems: 100,
  maxQuantity: 1_000_000,
  maxUrl: 2048,
  maxReference: 200,
  maxMetadataKeys: 50,
  maxMetadataKey: 40,
  maxMetadataValue: 500,
  /** Longest session lifetime: the longest invoice payment link (3120 hours). */
  maxLifetimeHours: 3120,
} as const;

export interface LineItemInput {
  name: string;
  description?: string | undefined;
  quantity: number;
  unitPrice: number;
  vatRate?: number | undefined;
  itemType?: string | undefined;
}

/** Checkout creation input; empty strings count as absent. */
export interface CheckoutInput {
  amount: number;
  currency: string;
  email?: string | undefined;
  returnUrl?: string | undefined;
  cancelUrl?: string | undefined;
  ipnUrl?: string | undefined;
  externalReference?: string | undefined;
  invoiceNumber?: string | undefined;
  clientId?: string | undefined;
  items?: LineItemInput[] | undefined;
  shippingAddress?: ShippingAddressInput | undefined;
  metadata?: Record<string, string> | undefined;
  expiresAt?: string | undefined;
}

export type ValidCheckoutInput = Pick<
  CheckoutDoc,
  | 'amount'
  | 'currency'
  | 'email'
  | 'returnUrl'
  | 'cancelUrl'
  | 'ipnUrl'
  | 'externalReference'
  | 'invoiceNumber'
  | 'clientId'
  | 'items'
  | 'metadata'
  | 'expiresAt'
> & { shippingAddress: ShippingAddress | null };

function bad(field: string, message: string): never {
  throw new ValidationError(`${field} ${message}`, { field });
}

const present = (v: string | undefined): string | undefined => {
  const t = v?.trim();
  return t ? t : undefined;
};

/**
 * An absolute http(s) URL that may contain the literal `{transactionId}` placeholder; the value
 * is kept exactly as given (trimmed) so the placeholder survives until redirect time.
 */
export function validateRedirectUrl(field: string, raw: string): string {
  const value = raw.trim();
  if (value.length > CHECKOUT_LIMITS.maxUrl) bad(field, `must be at most ${CHECKOUT_LIMITS.maxUrl} characters`);
  let url: URL;
  try {
    url = new URL(value.split('{transactionId}').join('placeholder'));
  } catch {
    bad(field, 'must be an absolute http(s) URL');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname)
    bad(field, 'must be an absolute http(s) URL');
  if (url.username || url.password) bad(field, 'must not contain credentials');
  return value;
}

export function validateMetadata(
  metadata: Record<string, string> | undefined,
  field = 'metadata',
): Record<string, string> {
  const entries = Object.entries(metadata ?? {});
  if (entries.length > CHECKOUT_LIMITS.maxMetadataKeys)
    bad(field, `may have at most ${CHECKOUT_LIMITS.maxMetadataKeys} keys`);
  for (const [k, v] of entries) {
    if (k.length === 0 || k.length > CHECKOUT_LIMITS.maxMetadataKey)
      bad(field, `keys must be 1 to ${CHECKOUT_LIMITS.maxMetadataKey} characters`);
    if (typeof v !== 'string' || v.length > CHECKOUT_LIMITS.maxMetadataValue) {
      bad(`${field}.${k}`, `must be a string of at most ${CHECKOUT_LIMITS.maxMetadataValue} characters`);
    }
  }
  return Object.fromEntries(entries);
}

/** Session expiry: `requested` (RFC 3339) in the future and within the longest lifetime, else the default. */
export function validateExpiresAt(requested: string | undefined, now: Date, defaultHours: number): string {
  const max = now.getTime() + CHECKOUT_LIMITS.maxLifetimeHours * 3_600_000;
  if (requested === undefined || requested.trim() === '')
    return new Date(now.getTime() + defaultHours * 3_600_000).toISOString();
  const value = requested.trim();
  const t = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) || Number.isNaN(t)) {
    bad('expiresAt', 'must be an RFC 3339 timestamp');
  }
  if (t <= now.getTime()) bad('expiresAt', 'must be in the future');
  if (t > max) bad('expiresAt', `must be at most ${CHECKOUT_LIMITS.maxLifetimeHours} hours ahead`);
  return new Date(t).toISOString();
}

function validateItem(item: LineItemInput, i: number): LineItem {
  const f = (k: string) => `items[${i}].${k}`;
  const name = item.name.trim();
  if (name.length === 0 || name.length > 200) bad(f('name'), 'must be 1 to 200 characters');
  const description = present(item.description) ?? null;
  if (description && description.length > 1000) bad(f('description'), 'must be at most 1000 characters');
  if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > CHECKOUT_LIMITS.maxQuantity) {
    bad(f('quantity'), `must be an integer from 1 to ${CHECKOUT_LIMITS.maxQuantity}`);
  }
  if (!Number.isSafeInteger(item.unitPrice) || Math.abs(item.unitPrice) > CHECKOUT_LIMITS.maxAmount) {
    bad(f('unitPrice'), 'must be an integer amount in minor units');
  }
  let vatRate: number | null = null;
  if (item.vatRate !== undefined && item.vatRate !== null) {
    if (!Number.isFinite(item.vatRate) || item.vatRate < 0 || item.vatRate > 100)
      bad(f('vatRate'), 'must be a percentage from 0 to 100');
    vatRate = item.vatRate;
  }
  const rawType = present(item.itemType);
  const itemType = ITEM_TYPES.find((t) => t === rawType) ?? null;
  if (rawType !== undefined && itemType === null) bad(f('itemType'), `must be one of ${ITEM_TYPES.join(', ')}`);
  return { name, description, quantity: item.quantity, unitPrice: item.unitPrice, vatRate, itemType };
}

/**
 * Validates checkout creation input. Required: `amount` (integer > 0, minor units), `currency`
 * (active ISO 4217 code) and at least one of `externalReference` / `invoiceNumber`. Everything
 * else is optional and checked when present. `amount` is what the buyer is charged; items describe
 * it and are not required to add up to it (prices may be net of tax).
 */
export function validateCheckoutInput(
  input: CheckoutInput,
  ctx: { now: Date; defaultLifetimeHours: number; ipnPolicy: IpnPolicy },
): ValidCheckoutInput {
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0 || input.amount > CHECKOUT_LIMITS.maxAmount) {
    bad('amount', 'must be a positive integer in minor units');
  }
  const currency = normalizeCurrency(input.currency ?? '');
  if (!currency) bad('currency', 'must be an ISO 4217 currency code');
  const externalReference = present(input.externalReference) ?? null;
  const invoiceNumber = present(input.invoiceNumber) ?? null;
  if (!externalReference && !invoiceNumber) {
    throw new ValidationError('externalReference or invoiceNumber is required (at least one of them)', {
      field: 'externalReference',
    });
  }
  if (externalReference && externalReference.length > CHECKOUT_LIMITS.maxReference) {
    bad('externalReference', `must be at most ${CHECKOUT_LIMITS.maxReference} characters`);
  }
  if (invoiceNumber && invoiceNumber.length > CHECKOUT_LIMITS.maxReference) {
    bad('invoiceNumber', `must be at most ${CHECKOUT_LIMITS.maxReference} characters`);
  }
  const email = present(input.email) ?? null;
  if (email && !isEmail(email)) bad('email', 'must be an e-mail address');
  const clientId = present(input.clientId) ?? null;
  if (clientId && !isObjectId(clientId)) bad('clientId', 'must be a 24-hex identifier');
  const returnUrl = present(input.returnUrl);
  const cancelUrl = present(input.cancelUrl);
  const ipnUrl = present(input.ipnUrl);
  const items = input.items ?? [];
  if (items.length > CHECKOUT_LIMITS.maxItems) bad('items', `may have at most ${CHECKOUT_LIMITS.maxItems} entries`);
  return {
    amount: input.amount,
    currency,
    email,
    returnUrl: returnUrl ? validateRedirectUrl('returnUrl', returnUrl) : null,
    cancelUrl: cancelUrl ? validateRedirectUrl('cancelUrl', cancelUrl) : null,
    ipnUrl: ipnUrl ? validateIpnUrl(ipnUrl, ctx.ipnPolicy) : null,
    externalReference,
    invoiceNumber,
    clientId,
    items: items.map(validateItem),
    shippingAddress: validateOptionalShippingAddress(input.shippingAddress),
    metadata: validateMetadata(input.metadata),
    expiresAt: validateExpiresAt(input.expiresAt, ctx.now, ctx.defaultLifetimeHours),
  };
}

/** Status as shown: a pending session past its expiry is `expired` (stored so by the sweep or not yet). */
export function checkoutStatus(doc: Pick<CheckoutDoc, 'status' | 'expiresAt'>, now: Date): CheckoutStatus {
  if (isSessionExpiryDue(doc, now)) return 'expired';
  return doc.status;
}

/** Whether the session sweep should store this session as expired at `now` (pure selection rule). */
export function isSessionExpiryDue(doc: Pick<CheckoutDoc, 'status' | 'expiresAt'>, now: Date): boolean {
  return doc.status === 'pending' && Date.parse(doc.expiresAt) <= now.getTime();
}

/** Line items of the public view; a checkout without items shows one line for the whole amount. */
export function publicLineItems(doc: Pick<CheckoutDoc, 'items' | 'amount' | 'invoiceNumber' | 'externalReference'>) {
  if (doc.items.length > 0)
    return doc.items.map((i) => ({ name: i.name, quantity: i.quantity, unitAmount: i.unitPrice }));
  const name = doc.invoiceNumber ? `Invoice ${doc.invoiceNumber}` : `Order ${doc.externalReference ?? ''}`.trim();
  return [{ name, quantity: 1, unitAmount: doc.amount }];
}

/** Public checkout session ID: `cs_` + 32 random base64url characters (192 bits). */
export function newSessionPublicId(): string {
  return `cs_${randomToken(24)}`;
}

const SHORT_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** Short code: 10 characters without look-alikes (about 49 bits), unique by index. */
export function newShortCode(length = 10): string {
  let out = '';
  const limit = 256 - (256 % SHORT_CODE_ALPHABET.length);
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < limit && out.length < length) out += SHORT_CODE_ALPHABET[b % SHORT_CODE_ALPHABET.length];
    }
  }
  return out;
}

/** Hosted checkout address of a session: `<CHECKOUT_FRONTEND_URL>/c/<sessionPublicId>`. */
export function paymentUrlFor(frontendUrl: string, sessionPublicId: string): string {
  return `${frontendUrl.replace(/\/+$/, '')}/c/${sessionPublicId}`;
}
