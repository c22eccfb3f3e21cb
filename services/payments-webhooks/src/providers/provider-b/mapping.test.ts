import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import { eventsOf } from './adapter';
import { chargebackStatusOf, outcomeOfStatus, toAmount, toMinor } from './mapping';

describe('provider_b mapping', () => {
  it('maps paid, failed, canceled and expired as the spec says; everything else is not settled', () => {
    expect(outcomeOfStatus('paid')).toBe('succeeded');
    expect(outcomeOfStatus('failed')).toBe('failed');
    expect(outcomeOfStatus('canceled')).toBe('cancelled');
    expect(outcomeOfStatus('expired')).toBe('cancelled');
    for (const s of ['open', 'pending', 'authorized', 'brand_new']) expect(outcomeOfStatus(s)).toBe('pending');
  });

  it('reads chargebacks: received = open, reversed = won, settled without reversal = lost', () => {
    expect(chargebackStatusOf({ reversedAt: null })).toBe('open');
    expect(chargebackStatusOf({ reversedAt: '2026-01-02T00:00:00Z', settlementId: 'stl_1' })).toBe('won');
    expect(chargebackStatusOf({ reversedAt: null, settlementId: 'stl_1' })).toBe('lost');
  });

  it('writes and reads amounts as decimal strings of the currency precision', () => {
    expect(toAmount(1234, 'eur')).toEqual({ currency: 'EUR', value: '12.34' });
    expect(toAmount(5, 'EUR')).toEqual({ currency: 'EUR', value: '0.05' });
    expect(toAmount(1500, 'JPY')).toEqual({ currency: 'JPY', value: '1500' });
    expect(toMinor({ currency: 'EUR', value: '12.34' })).toBe(1234);
    expect(toMinor({ currency: 'JPY', value: '1500' })).toBe(1500);
    for (const value of ['12.3', '12', '-1.00', '1e3', '12.345', ' 1.00'])
      expect(toMinor({ currency: 'EUR', value })).toBeNull();
  });
});

describe('provider_b events of a fetched payment', () => {
  const payment = (over: Record<string, unknown> = {}) => ({
    resource: 'payment' as const,
    id: 'tr_unit1',
    mode: 'test' as const,
    status: 'paid',
    createdAt: '2026-03-01T10:00:00Z',
    paidAt: '2026-03-01T10:01:00Z',
    metadata: { transaction_id: 'tx', provider_id: 'p', n: 1, nested: { no: 'thanks' } },
    _links: {},
    ...over,
  });

  it('names each fact by the state it reached, with only completed refunds and a running refunded total', () => {
    const events = eventsOf(
      payment({
        _embedded: {
          refunds: [
            {
              id: 're_2',
              status: 'refunded',
              amount: { currency: 'EUR', value: '3.00' },
              createdAt: '2026-03-02T00:00:00Z',
            },
            {
              id: 're_1',
              status: 'refunded',
              amount: { currency: 'EUR', value: '1.50' },
              createdAt: '2026-03-01T12:00:00Z',
            },
            {
              id: 're_3',
              status: 'pending',
              amount: { currency: 'EUR', value: '9.00' },
              createdAt: '2026-03-03T00:00:00Z',
            },
          ],
          chargebacks: [
            {
              id: 'chb_1',
              amount: { currency: 'EUR', value: '5.00' },
              createdAt: '2026-03-04T00:00:00Z',
              reversedAt: null,
              reason: { code: 'AC04' },
            },
          ],
        },
      }),
    );
    expect(events.map((e) => e.eventId)).toEqual(['tr_unit1:paid', 're_1:refunded', 're_2:refunded', 'chb_1:open']);
    expect(events[0]).toMatchObject({ outcome: 'succeeded', occurredAt: '2026-03-01T10:01:00.000Z', live: false });
    expect(events[0]?.payment).toEqual({
      providerPaymentId: 'tr_unit1',
      metadata: { transaction_id: 'tx', provider_id: 'p', n: '1' },
    });
    expect(events.slice(1, 3).map((e) => e.adjustment)).toEqual([
      { kind: 'refund', refundId: 're_1', amount: 150, currency: 'EUR', refundedTotal: 150 },
      { kind: 'refund', refundId: 're_2', amount: 300, currency: 'EUR', refundedTotal: 450 },
    ]);
    expect(events[3]?.adjustment).toEqual({
      kind: 'dispute',
      disputeId: 'chb_1',
      status: 'open',
      amount: 500,
      currency: 'EUR',
      reason: 'AC04',
    });
  });

  it('reports an open payment without effect and refuses unreadable amounts', () => {
    expect(eventsOf(payment({ status: 'open', paidAt: null }))).toEqual([
      expect.objectContaining({ eventId: 'tr_unit1:open', eventType: 'payment.open', outcome: null, adjustment: null }),
    ]);
    const bad = payment({
      _embedded: {
        refunds: [
          {
            id: 're_1',
            status: 'refunded',
            amount: { currency: 'EUR', value: '1' },
            createdAt: '2026-03-02T00:00:00Z',
          },
        ],
      },
    });
    expect(() => eventsOf(bad)).toThrow(ValidationError);
  });
});
