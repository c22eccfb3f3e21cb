import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import { decodeEnvelope, isEventEnvelope, makeEvent } from './envelope';
import { eventId } from './event-id';

describe('makeEvent', () => {
  it('builds an envelope with defaults', () => {
    const before = Date.now();
    const e = makeEvent('payments.transaction.status_changed', { status: 'succeeded' });
    expect(e.type).toBe('payments.transaction.status_changed');
    expect(e.version).toBe(1);
    expect(e.data).toEqual({ status: 'succeeded' });
    expect(e.id).toMatch(/^v1:[0-9a-f]{64}$/);
    expect(Date.parse(e.occurredAt)).toBeGreaterThanOrEqual(before - 1);
  });

  it('gives random ids unless one is passed', () => {
    const a = makeEvent('invoicing.invoice.issued', {});
    const b = makeEvent('invoicing.invoice.issued', {});
    expect(a.id).not.toBe(b.id);
    const id = eventId('invoicing.invoice.issued', 'inv_1');
    expect(makeEvent('invoicing.invoice.issued', {}, { id }).id).toBe(id);
  });

  it('takes version and occurredAt', () => {
    const e = makeEvent('invoicing.invoice.issued', null, { version: 2, occurredAt: '2026-01-02T03:04:05Z' });
    expect(e.version).toBe(2);
    expect(e.occurredAt).toBe('2026-01-02T03:04:05.000Z');
    expect(makeEvent('invoicing.invoice.issued', null, { occurredAt: new Date(0) }).occurredAt).toBe(
      '1970-01-01T00:00:00.000Z',
    );
  });

  it('validates subject, version and time', () => {
    expect(() => makeEvent('payments.transaction', {})).toThrow(ValidationError);
    expect(() => makeEvent('Payments.transaction.created', {})).toThrow(ValidationError);
    expect(() => makeEvent('payments.transaction.created.extra', {})).toThrow(ValidationError);
    expect(() => makeEvent('payments.*.created', {})).toThrow(ValidationError);
    expect(() => makeEvent('payments.transaction.created', {}, { version: 0 })).toThrow(ValidationError);
    expect(() => makeEvent('payments.transaction.created', {}, { version: 1.5 })).toThrow(ValidationError);
    expect(() => makeEvent('payments.transaction.created', {}, { occurredAt: 'nope' })).toThrow(ValidationError);
    expect(() => makeEvent('payments.transaction.created', {}, { id: '' })).toThrow(ValidationError);
  });
});

describe('decodeEnvelope', () => {
  it('round-trips through JSON', () => {
    const e = makeEvent('payments.refund.created', { amount: 100 });
    expect(decodeEnvelope(JSON.stringify(e))).toEqual(e);
    expect(decodeEnvelope(Buffer.from(JSON.stringify(e)))).toEqual(e);
  });

  it('rejects non-JSON and non-envelopes', () => {
    expect(() => decodeEnvelope('{nope')).toThrow(/not valid JSON/);
    expect(() => decodeEnvelope('{"id":"x"}')).toThrow(/not an event envelope/);
    expect(isEventEnvelope({ id: 'x', type: 't', version: '1', occurredAt: 'now', data: 1 })).toBe(false);
    expect(isEventEnvelope(null)).toBe(false);
    expect(isEventEnvelope({ id: 'x', type: 't', version: 1, occurredAt: 'now', data: undefined })).toBe(true);
  });
});
