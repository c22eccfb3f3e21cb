import { describe, expect, it } from 'vitest';
import { EMPTY_TARGET_ALLOW_LIST, parseTargetAllowList } from '@paymesh/core';
import {
  checkoutStatus,
  isSessionExpiryDue,
  newSessionPublicId,
  newShortCode,
  paymentUrlFor,
  publicLineItems,
  validateCheckoutInput,
  type CheckoutInput,
} from './checkout';
import { validateBillingAddress } from './billing-address';
import { fillTransactionId, hostedReturnUrl, isDeletable } from './transaction';

const now = new Date('2026-03-01T12:00:00.000Z');
const ctx = { now, defaultLifetimeHours: 24, ipnPolicy: { allowHttp: false, allowedTargets: EMPTY_TARGET_ALLOW_LIST } };
const base: CheckoutInput = { amount: 1999, currency: 'EUR', externalReference: 'order-1' };

const invalid = (patch: Partial<CheckoutInput>, message: RegExp) =>
  expect(() => validateCheckoutInput({ ...base, ...patch }, ctx)).toThrow(message);

describe('checkout creation input', () => {
  it('accepts the minimum (amount, currency, one reference) and fills defaults', () => {
    const v = validateCheckoutInput(base, ctx);
    expect(v).toEqual({
      amount: 1999,
      currency: 'EUR',
      email: null,
      returnUrl: null,
      cancelUrl: null,
      ipnUrl: null,
      externalReference: 'order-1',
      invoiceNumber: null,
      clientId: null,
      items: [],
      shippingAddress: null,
      metadata: {},
      expiresAt: '2026-03-02T12:00:00.000Z',
    });
  });

  it('accepts every field and keeps the {transactionId} placeholder literally', () => {
    const v = validateCheckoutInput(
      {
        ...base,
        currency: 'usd',
        invoiceNumber: 'INV-7',
        email: 'buyer@example.com',
        returnUrl: 'https://shop.example/thanks/{transactionId}?x=1',
        cancelUrl: 'https://shop.example/cancel?tx={transactionId}',
        ipnUrl: 'https://shop.example/ipn',
        clientId: '0123456789abcdef01234567',
        items: [
          {
            name: 'Plan',
            description: 'Pro plan',
            quantity: 2,
            unitPrice: 1000,
            vatRate: 19,
            itemType: 'digital_service',
          },
        ],
        shippingAddress: { country: ' fr ', name: 'Ada Buyer', line1: '', city: 'Lyon', postalCode: '69003' },
        metadata: { cart: '42' },
        expiresAt: '2026-03-01T14:00:00+01:00',
      },
      ctx,
    );
    expect(v.shippingAddress).toEqual({
      country: 'FR',
      name: 'Ada Buyer',
      line1: null,
      city: 'Lyon',
      postalCode: '69003',
    });
    expect(v.expiresAt).toBe('2026-03-01T13:00:00.000Z');
    expect(v.currency).toBe('USD');
    expect(v.returnUrl).toBe('https://shop.example/thanks/{transactionId}?x=1');
    expect(v.cancelUrl).toBe('https://shop.example/cancel?tx={transactionId}');
    expect(v.items).toEqual([
      { name: 'Plan', description: 'Pro plan', quantity: 2, unitPrice: 1000, vatRate: 19, itemType: 'digital_service' },
    ]);
  });

  it('requires an expiry in the future and within 3120 hours', () => {
    // 13:00+01:00 is 12:00Z, i.e. now
    invalid({ expiresAt: '2026-03-01T13:00:00+01:00' }, /expiresAt must be in the future/);
    invalid({ expiresAt: '2027-03-01T12:00:00Z' }, /at most 3120 hours/);
    invalid({ expiresAt: 'tomorrow' }, /expiresAt must be an RFC 3339 timestamp/);
    expect(validateCheckoutInput({ ...base, expiresAt: '2026-03-05T00:00:00Z' }, ctx).expiresAt).toBe(
      '2026-03-05T00:00:00.000Z',
    );
  });

  it.each([
    [{ amount: 0 }, /amount must be a positive integer/],
    [{ amount: -5 }, /amount must be a positive integer/],
    [{ amount: 10.5 }, /amount must be a positive integer/],
    [{ currency: 'EURO' }, /currency must be an ISO 4217/],
    [{ currency: 'XYZ' }, /currency must be an ISO 4217/],
    [{ currency: '' }, /currency must be an ISO 4217/],
    [{ externalReference: undefined }, /externalReference or invoiceNumber is required/],
    [{ externalReference: '   ' }, /externalReference or invoiceNumber is required/],
    [{ email: 'not-an-email' }, /email must be an e-mail address/],
    [{ returnUrl: 'shop.example/thanks' }, /returnUrl must be an absolute http\(s\) URL/],
    [{ returnUrl: 'javascript:alert(1)' }, /returnUrl must be an absolute http\(s\) URL/],
    [{ cancelUrl: 'ftp://shop.example' }, /cancelUrl must be an absolute http\(s\) URL/],
    [{ ipnUrl: 'http://shop.example/ipn' }, /ipnUrl must use https/],
    [{ ipnUrl: 'https://10.0.0.5/ipn' }, /ipnUrl must not target/],
    [{ clientId: 'abc' }, /clientId must be a 24-hex identifier/],
    [{ items: [{ name: '', quantity: 1, unitPrice: 1 }] }, /items\[0\]\.name/],
    [{ items: [{ name: 'a', quantity: 0, unitPrice: 1 }] }, /items\[0\]\.quantity/],
    [{ items: [{ name: 'a', quantity: 1.5, unitPrice: 1 }] }, /items\[0\]\.quantity/],
    [{ items: [{ name: 'a', quantity: 1, unitPrice: 1.25 }] }, /items\[0\]\.unitPrice/],
    [{ items: [{ name: 'a', quantity: 1, unitPrice: 1, vatRate: 101 }] }, /items\[0\]\.vatRate/],
    [{ items: [{ name: 'a', quantity: 1, unitPrice: 1, vatRate: -1 }] }, /items\[0\]\.vatRate/],
    [{ items: [{ name: 'a', quantity: 1, unitPrice: 1, itemType: 'weird' }] }, /items\[0\]\.itemType must be one of/],
    [{ metadata: { ['k'.repeat(41)]: 'v' } }, /metadata keys/],
    [{ shippingAddress: {} }, /shippingAddress\.country is required/],
    [{ shippingAddress: { country: 'QQ' } }, /shippingAddress\.country must be a two-letter ISO 3166-1/],
    [
      { shippingAddress: { country: 'FR', postalCode: 'x'.repeat(21) } },
      /shippingAddress\.postalCode must be at most 20/,
    ],
    [{ shippingAddress: { country: 'FR', city: 'x'.repeat(101) } }, /shippingAddress\.city must be at most 100/],
  ])('rejects %j', (patch, message) => invalid(patch as Partial<CheckoutInput>, message));

  it('accepts the invoice number alone as the reference', () => {
    expect(validateCheckoutInput({ amount: 5, currency: 'EUR', invoiceNumber: 'INV-1' }, ctx).invoiceNumber).toBe(
      'INV-1',
    );
  });

  it('allows http IPN targets when configured', () => {
    const dev = { ...ctx, ipnPolicy: { allowHttp: true, allowedTargets: parseTargetAllowList('127.0.0.1') } };
    expect(validateCheckoutInput({ ...base, ipnUrl: 'http://127.0.0.1:9999/ipn' }, dev).ipnUrl).toBe(
      'http://127.0.0.1:9999/ipn',
    );
  });
});

describe('checkout status and views', () => {
  it('derives expired from expiresAt for pending sessions only', () => {
    expect(checkoutStatus({ status: 'pending', expiresAt: '2026-03-01T12:00:01.000Z' }, now)).toBe('pending');
    expect(checkoutStatus({ status: 'pending', expiresAt: '2026-03-01T12:00:00.000Z' }, now)).toBe('expired');
    expect(checkoutStatus({ status: 'completed', expiresAt: '2026-01-01T00:00:00.000Z' }, now)).toBe('completed');
    expect(checkoutStatus({ status: 'expired', expiresAt: '2026-03-01T11:00:00.000Z' }, now)).toBe('expired');
  });

  it('sweeps pending sessions past their expiry only (never a paid or already expired one)', () => {
    expect(isSessionExpiryDue({ status: 'pending', expiresAt: '2026-03-01T12:00:00.000Z' }, now)).toBe(true);
    expect(isSessionExpiryDue({ status: 'pending', expiresAt: '2026-03-01T12:00:00.001Z' }, now)).toBe(false);
    expect(isSessionExpiryDue({ status: 'completed', expiresAt: '2026-01-01T00:00:00.000Z' }, now)).toBe(false);
    expect(isSessionExpiryDue({ status: 'expired', expiresAt: '2026-01-01T00:00:00.000Z' }, now)).toBe(false);
  });

  it('shows items as line items, or one line for the whole amount', () => {
    const item = { name: 'Plan', description: null, quantity: 2, unitPrice: 700, vatRate: null, itemType: null };
    expect(publicLineItems({ items: [item], amount: 1400, invoiceNumber: null, externalReference: 'o-1' })).toEqual([
      { name: 'Plan', quantity: 2, unitAmount: 700 },
    ]);
    expect(publicLineItems({ items: [], amount: 1400, invoiceNumber: 'INV-9', externalReference: null })).toEqual([
      { name: 'Invoice INV-9', quantity: 1, unitAmount: 1400 },
    ]);
  });

  it('mints URL-safe random session IDs and short codes', () => {
    const ids = new Set(Array.from({ length: 200 }, newSessionPublicId));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^cs_[A-Za-z0-9_-]{32}$/);
    for (let i = 0; i < 50; i++) expect(newShortCode()).toMatch(/^[2-9A-HJKMNP-Z]{10}$/);
    expect(paymentUrlFor('https://pay.example/', 'cs_x')).toBe('https://pay.example/c/cs_x');
  });
});

describe('billing address', () => {
  const addr = {
    name: 'Ada',
    email: 'ada@example.com',
    line1: 'Main St 1',
    city: 'Berlin',
    postalCode: '10115',
    country: 'de',
  };
  it('normalizes the country and keeps the other fields', () => {
    expect(validateBillingAddress(addr)).toEqual({ ...addr, country: 'DE' });
  });
  it('requires name, email and country; line1, city and postal code may be empty', () => {
    expect(() => validateBillingAddress({ ...addr, name: ' ' })).toThrow('billingAddress.name is required');
    expect(() => validateBillingAddress({ ...addr, email: 'x' })).toThrow(
      'billingAddress.email must be an e-mail address',
    );
    expect(() => validateBillingAddress({ ...addr, country: 'Germany' })).toThrow(
      /billingAddress.country must be a two-letter/,
    );
    expect(() => validateBillingAddress({ ...addr, country: 'XX' })).toThrow(/billingAddress.country/);
    expect(validateBillingAddress({ name: 'Ada', email: 'ada@example.com', country: 'FR' })).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
      line1: '',
      city: '',
      postalCode: '',
      country: 'FR',
    });
  });
});

describe('transaction helpers', () => {
  it('replaces every {transactionId} placeholder', () => {
    expect(fillTransactionId('https://s.example/{transactionId}?t={transactionId}', 'abc')).toBe(
      'https://s.example/abc?t=abc',
    );
  });
  it('returns buyers to the hosted page of their session with the transaction ID', () => {
    expect(hostedReturnUrl('https://pay.example/c/cs_1', 'abc')).toBe('https://pay.example/c/cs_1?transactionId=abc');
    expect(hostedReturnUrl('http://127.0.0.1:8081/shop/c/cs_2', 'x y')).toBe(
      'http://127.0.0.1:8081/shop/c/cs_2?transactionId=x+y',
    );
  });
  it('allows deleting only quiet transactions without a provider payment', () => {
    const none = {
      providerPaymentId: null,
      providerPayment: { state: 'none' as const, error: null, redirectUrl: null },
    };
    expect(isDeletable({ status: -1, ...none })).toBe(true);
    expect(isDeletable({ status: -2, ...none })).toBe(true);
    expect(isDeletable({ status: 2, ...none })).toBe(true);
    expect(isDeletable({ status: 0, ...none })).toBe(false);
    expect(isDeletable({ status: 1, ...none })).toBe(false);
    expect(
      isDeletable({
        status: 2,
        providerPaymentId: 'pi_1',
        providerPayment: { state: 'created', error: null, redirectUrl: null },
      }),
    ).toBe(false);
    expect(
      isDeletable({
        status: -2,
        providerPaymentId: null,
        providerPayment: { state: 'indeterminate', error: 'x', redirectUrl: null },
      }),
    ).toBe(false);
  });
});
