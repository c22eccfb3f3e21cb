import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import {
  assertNamespace,
  consumerName,
  domainOf,
  eventSubjectFromWire,
  isEventSubject,
  isSubjectFilter,
  streamName,
  streamSubjects,
  wireSubject,
} from './subjects';

describe('subjects', () => {
  it('accepts <domain>.<entity>.<past-verb>', () => {
    expect(isEventSubject('payments.transaction.status_changed')).toBe(true);
    expect(isEventSubject('payments.transaction')).toBe(false);
    expect(isEventSubject('pay_ments.transaction.created')).toBe(false);
    expect(isEventSubject('payments..created')).toBe(false);
  });

  it('accepts filters with a concrete domain', () => {
    for (const f of ['payments.>', 'payments.transaction.*', 'payments.*.refunded', 'payments.transaction.>']) {
      expect(isSubjectFilter(f)).toBe(true);
    }
    for (const f of ['>', '*.transaction.created', 'payments', 'payments.>.x', 'payments.a.b.c']) {
      expect(isSubjectFilter(f)).toBe(false);
    }
  });

  it('names wire subjects, streams and consumers per namespace', () => {
    expect(wireSubject('paymesh', 'payments.transaction.created')).toBe('paymesh.payments.transaction.created');
    expect(eventSubjectFromWire('paymesh', 'paymesh.payments.transaction.created')).toBe(
      'payments.transaction.created',
    );
    expect(streamName('paymesh', 'payments')).toBe('PAYMESH_PAYMENTS');
    expect(streamSubjects('t_1', 'payments')).toEqual(['t_1.payments.>']);
    expect(consumerName('paymesh', 'invoicing', 'payment-status')).toBe('PAYMESH_INVOICING_PAYMENT_STATUS');
    expect(domainOf('payments.>')).toBe('payments');
  });

  it('rejects bad names', () => {
    expect(() => assertNamespace('1abc')).toThrow(ValidationError);
    expect(() => assertNamespace('a.b')).toThrow(ValidationError);
    expect(() => assertNamespace('paymesh_ci')).not.toThrow();
    expect(() => consumerName('paymesh', 'invoicing', 'a.b')).toThrow(ValidationError);
    expect(() => consumerName('paymesh', 'in voicing', 'x')).toThrow(ValidationError);
    expect(() => domainOf('*.x.y')).toThrow(ValidationError);
  });
});
