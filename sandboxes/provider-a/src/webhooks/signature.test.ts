import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { computeSignature, signatureHeader } from './signature';

const stripe = new Stripe('sk_test_unit', { telemetry: false });
const secret = 'whsec_unitTestSecret123';
const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment_intent.succeeded' }, null, 2);

describe('webhook signature', () => {
  it('produces exactly the header the SDK expects', () => {
    const timestamp = 1_700_000_000;
    expect(signatureHeader(payload, secret, timestamp)).toBe(
      stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }),
    );
  });

  it('verifies with constructEvent and rejects tampering, other secrets and stale timestamps', () => {
    const now = Math.floor(Date.now() / 1000);
    const header = signatureHeader(payload, secret, now);
    expect(stripe.webhooks.constructEvent(payload, header, secret).id).toBe('evt_1');
    expect(() => stripe.webhooks.constructEvent(payload.replace('evt_1', 'evt_2'), header, secret)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => stripe.webhooks.constructEvent(payload, header, 'whsec_other')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => stripe.webhooks.constructEvent(payload, signatureHeader(payload, secret, now - 3600), secret)).toThrow(
      /tolerance/,
    );
  });

  it('is a hex HMAC-SHA256 over "<t>.<payload>"', () => {
    expect(computeSignature('{}', 'whsec_x', 1)).toMatch(/^[0-9a-f]{64}$/);
    expect(computeSignature('{}', 'whsec_x', 1)).not.toBe(computeSignature('{}', 'whsec_x', 2));
  });
});
