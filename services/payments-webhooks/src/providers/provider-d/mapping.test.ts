import { describe, expect, it } from 'vitest';
import {
  disputeStatusOf,
  familyOf,
  orderAwaitsBuyer,
  orderAwaitsCapture,
  outcomeOfCapture,
  outcomeOfOrder,
  toMinor,
  toMoney,
} from './mapping';

describe('provider_d mapping', () => {
  it('maps event types to families; unknown types have no effect', () => {
    expect(familyOf('CHECKOUT.ORDER.APPROVED')).toBe('order_approved');
    expect(familyOf('PAYMENT.CAPTURE.DENIED')).toBe('capture');
    expect(familyOf('PAYMENT.CAPTURE.REFUNDED')).toBe('capture_refunded');
    expect(familyOf('CUSTOMER.DISPUTE.RESOLVED')).toBe('dispute');
    expect(familyOf('BILLING.SUBSCRIPTION.CREATED')).toBe('other');
  });

  it('maps capture statuses and dispute outcomes', () => {
    expect(outcomeOfCapture('COMPLETED')).toBe('succeeded');
    expect(outcomeOfCapture('DECLINED')).toBe('failed');
    expect(outcomeOfCapture('PENDING')).toBe('pending');
    expect(disputeStatusOf('RESOLVED', 'RESOLVED_BUYER_FAVOUR')).toBe('lost');
    expect(disputeStatusOf('RESOLVED', 'RESOLVED_SELLER_FAVOUR')).toBe('won');
    expect(disputeStatusOf('UNDER_REVIEW', null)).toBe('under_review');
    expect(disputeStatusOf('OPEN', null)).toBe('open');
  });

  it('an approved order waits for our capture; other orders do not, and none settles without one', () => {
    expect(orderAwaitsCapture('APPROVED')).toBe(true);
    for (const status of ['CREATED', 'SAVED', 'PAYER_ACTION_REQUIRED', 'COMPLETED', 'VOIDED'])
      expect(orderAwaitsCapture(status)).toBe(false);
    expect(outcomeOfOrder('APPROVED')).toBe('pending');
    expect(outcomeOfOrder('VOIDED')).toBe('cancelled');
  });

  it('only an order still waiting for the buyer may be abandoned without a void', () => {
    expect(orderAwaitsBuyer('CREATED')).toBe(true);
    expect(orderAwaitsBuyer('PAYER_ACTION_REQUIRED')).toBe(true);
    for (const status of ['APPROVED', 'SAVED', 'COMPLETED', 'VOIDED', 'SOMETHING_NEW'])
      expect(orderAwaitsBuyer(status)).toBe(false);
  });

  it('converts amounts both ways and refuses malformed values', () => {
    expect(toMoney(1234, 'eur')).toEqual({ currency_code: 'EUR', value: '12.34' });
    expect(toMoney(500, 'JPY')).toEqual({ currency_code: 'JPY', value: '500' });
    expect(toMinor({ currency_code: 'EUR', value: '12.34' })).toBe(1234);
    expect(toMinor({ currency_code: 'EUR', value: '12.3' })).toBeNull();
    expect(toMinor({ currency_code: 'EUR', value: '-1.00' })).toBeNull();
  });
});
