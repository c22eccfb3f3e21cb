import { describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '@paymesh/core';
import {
  allowedProviderTypes,
  assertCheckoutAllowed,
  assertPaymentAllowed,
  blocksFor,
  buyerKeys,
  buyerOf,
  defaultRiskSettings,
  holdActionFor,
  judgeBuyer,
  liftHold,
  manualChargebackChange,
  validateRiskSettings,
  type BuyerBlockDoc,
  type CustomerHoldDoc,
} from './customer-hold';
import type { Chargeback } from './transaction';

type Block = Pick<BuyerBlockDoc, 'kind' | 'action' | 'safeProviderTypes'>;
const dispute: Block = { kind: 'dispute', action: null, safeProviderTypes: [] };
const hold = (action: 'block' | 'review' | 'restrict', safe: string[] = []): Block => ({
  kind: 'hold',
  action,
  safeProviderTypes: safe,
});

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ConflictError);
    return (err as ConflictError).code;
  }
}

describe('the same buyer', () => {
  it('is recognised by e-mail case-insensitively and by client ID, each a key of its own', () => {
    const b = buyerOf([' Erika@Example.COM ', 'erika@example.com', null, ''], '65A0B1C2D3E4F5A6B7C8D9E0');
    expect(b).toEqual({ emails: ['erika@example.com'], clientId: '65a0b1c2d3e4f5a6b7c8d9e0' });
    expect(buyerKeys(b)).toEqual(['email:erika@example.com', 'client:65a0b1c2d3e4f5a6b7c8d9e0']);
  });

  it('keeps two different addresses of one payment (checkout e-mail and billing e-mail)', () => {
    expect(buyerKeys(buyerOf(['a@example.com', 'b@example.com'], null))).toEqual([
      'email:a@example.com',
      'email:b@example.com',
    ]);
  });

  it('has no keys without an e-mail or a client, so nothing can match it', () => {
    expect(buyerKeys(buyerOf([null, '  '], ''))).toEqual([]);
    expect(
      blocksFor(
        {
          organizationId: 'o',
          mode: 'test',
          kind: 'dispute',
          ref: 'r',
          action: null,
          safeProviderTypes: [],
          createdAt: 't',
        },
        buyerOf([], null),
      ),
    ).toEqual([]);
  });
});

describe('hold policy', () => {
  it('defaults to blocking, with provider_b as the safe type', () => {
    expect(defaultRiskSettings()).toEqual({ holdPolicy: 'block', safeProviderTypes: ['provider_b'] });
  });

  it('creates a hold only for a final merchant loss, and none under policy none', () => {
    const block = defaultRiskSettings();
    expect(holdActionFor(block, 'lost')).toBe('block');
    expect(holdActionFor(block, 'accepted')).toBe('block');
    for (const s of ['open', 'under_review', 'won'] as const) expect(holdActionFor(block, s)).toBeNull();
    expect(holdActionFor({ ...block, holdPolicy: 'restrict' }, 'lost')).toBe('restrict');
    expect(holdActionFor({ ...block, holdPolicy: 'none' }, 'lost')).toBeNull();
  });

  it('accepts only bank-transfer-capable safe types, at least one', () => {
    expect(
      validateRiskSettings({ holdPolicy: 'restrict', safeProviderTypes: ['provider_c', 'provider_b', 'provider_c'] }),
    ).toEqual({
      holdPolicy: 'restrict',
      safeProviderTypes: ['provider_c', 'provider_b'],
    });
    expect(() => validateRiskSettings({ holdPolicy: 'restrict', safeProviderTypes: ['provider_a'] })).toThrow(
      ValidationError,
    );
    expect(() => validateRiskSettings({ holdPolicy: 'restrict', safeProviderTypes: [] })).toThrow(/at least one/);
    expect(() => validateRiskSettings({ holdPolicy: 'maybe' as 'none', safeProviderTypes: ['provider_b'] })).toThrow(
      /holdPolicy/,
    );
  });
});

describe('what a flagged buyer may do', () => {
  it('lets a buyer without flags do anything', () => {
    const v = judgeBuyer([]);
    expect(v).toEqual({ kind: 'clear' });
    expect(codeOf(() => assertCheckoutAllowed(v, ['provider_a']))).toBeUndefined();
    expect(codeOf(() => assertPaymentAllowed(v, 'provider_a'))).toBeUndefined();
    expect(allowedProviderTypes(v, ['provider_a', 'provider_b'])).toEqual(['provider_a', 'provider_b']);
  });

  it('blocks while a dispute is active, whatever the holds say', () => {
    const v = judgeBuyer([hold('restrict', ['provider_b']), dispute]);
    expect(v).toEqual({ kind: 'dispute' });
    expect(codeOf(() => assertCheckoutAllowed(v, ['provider_b']))).toBe('CHECKOUT_BLOCKED_BY_DISPUTE');
    expect(codeOf(() => assertPaymentAllowed(v, 'provider_b'))).toBe('CHECKOUT_BLOCKED_BY_DISPUTE');
  });

  it('blocks for block and review holds, block first', () => {
    expect(judgeBuyer([hold('review'), hold('block')])).toEqual({ kind: 'held', action: 'block' });
    const review = judgeBuyer([hold('restrict', ['provider_b']), hold('review')]);
    expect(review).toEqual({ kind: 'held', action: 'review' });
    expect(codeOf(() => assertCheckoutAllowed(review, ['provider_b']))).toBe('CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD');
  });

  it('restricts to the types every restricting hold allows', () => {
    const v = judgeBuyer([hold('restrict', ['provider_b', 'provider_c']), hold('restrict', ['provider_c'])]);
    expect(v).toEqual({ kind: 'restricted', safeProviderTypes: ['provider_c'] });
    expect(allowedProviderTypes(v, ['provider_a', 'provider_b', 'provider_c'])).toEqual(['provider_c']);
    expect(codeOf(() => assertPaymentAllowed(v, 'provider_a'))).toBe('CHECKOUT_RESTRICTED_BY_CUSTOMER_HOLD');
    expect(codeOf(() => assertPaymentAllowed(v, 'provider_c'))).toBeUndefined();
  });

  it('refuses a restricted checkout only when no offered type is safe', () => {
    const v = judgeBuyer([hold('restrict', ['provider_b'])]);
    expect(codeOf(() => assertCheckoutAllowed(v, ['provider_a', 'provider_b']))).toBeUndefined();
    expect(codeOf(() => assertCheckoutAllowed(v, ['provider_a', 'provider_d']))).toBe(
      'CHECKOUT_RESTRICTED_BY_CUSTOMER_HOLD',
    );
  });
});

describe('lifting a hold', () => {
  const active: CustomerHoldDoc = {
    id: 'h',
    version: 1,
    organizationId: 'o',
    mode: 'test',
    status: 'active',
    action: 'block',
    safeProviderTypes: [],
    buyer: { emails: ['a@example.com'], clientId: null },
    buyerEmail: 'a@example.com',
    source: { transactionId: 't', chargebackId: 'dp_1', outcome: 'lost', decidedBy: 'provider' },
    sourceKey: 't:dp_1',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    liftedAt: null,
    liftedBy: null,
    liftReason: null,
  };

  it('records who lifted it, when and why, once', () => {
    const lifted = liftHold(active, { actor: 'user:u1', reason: 'customer verified', at: '2026-02-01T00:00:00.000Z' });
    expect(lifted).toMatchObject({
      status: 'lifted',
      liftedBy: 'user:u1',
      liftedAt: '2026-02-01T00:00:00.000Z',
      liftReason: 'customer verified',
    });
    expect(liftHold(lifted!, { actor: 'user:u2', reason: null, at: '2026-03-01T00:00:00.000Z' })).toBeNull();
  });
});

describe('manual chargeback resolution', () => {
  const cb = (status: Chargeback['status']): Chargeback => ({
    id: 'dp_1',
    status,
    amount: 100,
    currency: 'EUR',
    reason: null,
    at: 't',
    updatedAt: 't',
    resolvedAt: null,
  });

  it('moves an active chargeback anywhere and treats the current status as a repeat', () => {
    expect(manualChargebackChange(cb('open'), 'under_review')).toBe('change');
    expect(manualChargebackChange(cb('under_review'), 'lost')).toBe('change');
    expect(manualChargebackChange(cb('open'), 'open')).toBe('unchanged');
    expect(manualChargebackChange(cb('lost'), 'lost')).toBe('unchanged');
  });

  it('never changes a decided chargeback (409 CHARGEBACK_FINAL)', () => {
    for (const from of ['won', 'lost', 'accepted'] as const) {
      for (const to of ['open', 'under_review', 'won', 'lost', 'accepted'] as const) {
        if (from === to) continue;
        expect(codeOf(() => manualChargebackChange(cb(from), to))).toBe('CHARGEBACK_FINAL');
      }
    }
  });
});
