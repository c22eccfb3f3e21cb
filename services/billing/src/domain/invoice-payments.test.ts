import { describe, expect, it } from 'vitest';
import {
  refundSource,
  settlementOf,
  uncoveredByRefunds,
  withPayment,
  withReversal,
  type PaymentState,
} from './invoice-payments';

const empty: PaymentState = { total: 10000, payments: [], paymentReversals: [] };
const T1 = 'a'.repeat(24);
const T2 = 'b'.repeat(24);
const pay = (s: PaymentState, transactionId: string, amount: number) =>
  withPayment(s, { transactionId, amount, paidAt: '2027-01-10T10:00:00.000Z' });
const reverse = (s: PaymentState, transactionId: string, sourceEventId: string) =>
  withReversal(s, {
    transactionId,
    kind: 'refund',
    at: '2027-01-11T10:00:00.000Z',
    sourceEventId,
    creditNoteId: 'c'.repeat(24),
  });

describe('invoice settlement', () => {
  it('nothing paid: issued, all outstanding', () => {
    expect(settlementOf(empty)).toEqual({ amountPaid: 0, amountDue: 10000, status: 'issued' });
  });

  it('a partial payment: partially_paid with the rest outstanding', () => {
    const s = pay(empty, T1, 4000)!;
    expect(settlementOf(s)).toEqual({ amountPaid: 4000, amountDue: 6000, status: 'partially_paid' });
  });

  it('payments reaching the total: paid', () => {
    const s = pay(pay(empty, T1, 4000)!, T2, 6000)!;
    expect(settlementOf(s)).toEqual({ amountPaid: 10000, amountDue: 0, status: 'paid' });
  });

  it('records one payment per transaction', () => {
    const s = pay(empty, T1, 4000)!;
    expect(pay(s, T1, 4000)).toBeNull();
  });

  it('a refund reverses the transaction payment: outstanding rises again', () => {
    const paid = pay(pay(empty, T1, 4000)!, T2, 6000)!;
    const r = reverse(paid, T2, 'ev-1')!;
    expect(r.reversal.amount).toBe(6000);
    expect(settlementOf(r.state)).toEqual({ amountPaid: 4000, amountDue: 6000, status: 'partially_paid' });
  });

  it('one reversal per source event, and none beyond what the transaction paid', () => {
    const paid = pay(empty, T1, 4000)!;
    const r = reverse(paid, T1, 'ev-1')!;
    expect(reverse(r.state, T1, 'ev-1')).toBeNull();
    expect(reverse(r.state, T1, 'ev-2')).toBeNull();
    expect(reverse(empty, T2, 'ev-3')).toBeNull();
    expect(settlementOf(r.state)).toEqual({ amountPaid: 0, amountDue: 10000, status: 'issued' });
  });

  it('a refund reverses at most its amount; the refunds of one payment add up to it', () => {
    const paid = pay(empty, T1, 4000)!;
    const first = withReversal(
      paid,
      { transactionId: T1, kind: 'refund', at: 'x', sourceEventId: refundSource('r1'), creditNoteId: 'c1' },
      1500,
    )!;
    expect(first.reversal.amount).toBe(1500);
    expect(settlementOf(first.state)).toEqual({ amountPaid: 2500, amountDue: 7500, status: 'partially_paid' });
    // A later refund larger than what is left reverses only the rest.
    const second = withReversal(
      first.state,
      { transactionId: T1, kind: 'refund', at: 'x', sourceEventId: refundSource('r2'), creditNoteId: 'c2' },
      3000,
    )!;
    expect(second.reversal.amount).toBe(2500);
    expect(
      withReversal(
        second.state,
        { transactionId: T1, kind: 'refund', at: 'x', sourceEventId: refundSource('r3'), creditNoteId: 'c3' },
        100,
      ),
    ).toBeNull();
  });

  it('status 3 reverses only what the recorded refunds do not cover', () => {
    const paid = pay(empty, T1, 4000)!;
    // Set without a refund record: all that is left.
    expect(uncoveredByRefunds(paid, T1, [])).toBe(4000);
    // Provider refunds whose events have not arrived yet: covered by them.
    expect(
      uncoveredByRefunds(paid, T1, [
        { refundId: 'r1', amount: 1000 },
        { refundId: 'r2', amount: 3000 },
      ]),
    ).toBe(0);
    // One refund credited already, another pending, the rest set by hand.
    const one = withReversal(
      paid,
      { transactionId: T1, kind: 'refund', at: 'x', sourceEventId: refundSource('r1'), creditNoteId: 'c1' },
      1000,
    )!;
    expect(
      uncoveredByRefunds(one.state, T1, [
        { refundId: 'r1', amount: 1000 },
        { refundId: 'r2', amount: 500 },
      ]),
    ).toBe(2500);
    expect(uncoveredByRefunds(one.state, T1, [{ refundId: 'r1', amount: 1000 }])).toBe(3000);
  });
});
