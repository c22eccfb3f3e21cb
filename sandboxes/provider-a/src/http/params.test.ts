import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors';
import { parseForm } from './forms';
import { paginate } from './list';
import { Params } from './params';

describe('form parsing and params', () => {
  it('parses bracket notation as sent by the SDK', () => {
    const body = parseForm(
      'amount=1000&metadata[transaction_id]=tx%201&metadata[empty]=&payment_method_types[0]=card&automatic_payment_methods[enabled]=true&expand[]=latest_charge',
    );
    const p = Params.of(body, ['amount', 'metadata', 'payment_method_types', 'automatic_payment_methods']);
    expect(p.int('amount')).toBe(1000);
    expect(p.metadata()).toEqual({ transaction_id: 'tx 1', empty: null });
    expect(p.newMetadata()).toEqual({ transaction_id: 'tx 1' });
    expect(p.stringArray('payment_method_types')).toEqual(['card']);
    expect(p.nested('automatic_payment_methods', ['enabled'])?.bool('enabled')).toBe(true);
    expect(p.expand()).toEqual(['latest_charge']);
  });

  it('keeps long arrays as arrays', () => {
    const events = Array.from({ length: 150 }, (_, i) => `enabled_events[${i}]=e${i}`).join('&');
    expect(Params.of(parseForm(events), ['enabled_events']).stringArray('enabled_events')).toHaveLength(150);
  });

  it('reports errors with the provider messages', () => {
    const msg = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as ApiError).message;
      }
      return 'no error';
    };
    expect(msg(() => Params.of({ nope: '1' }, ['amount']))).toBe('Received unknown parameter: nope');
    expect(msg(() => Params.of({}, ['amount']).int('amount', { required: true }))).toBe(
      'Missing required param: amount.',
    );
    expect(msg(() => Params.of({ amount: '12.5' }, ['amount']).int('amount'))).toBe('Invalid integer: 12.5');
    expect(msg(() => Params.of({ m: { __proto__x: 'a'.repeat(501) } }, ['m']).metadata('m'))).toMatch(/at most 500/);
    expect(msg(() => Params.of({ u: 'javascript:alert(1)' }, ['u']).url('u'))).toMatch(/Invalid URL/);
  });
});

describe('paginate', () => {
  const items = Array.from({ length: 5 }, (_, i) => ({ id: `o${i}` }));
  const page = (q: Record<string, string>) =>
    paginate(items, Params.of(q, ['limit', 'starting_after', 'ending_before']), '/v1/x');
  it('pages newest first in both directions', () => {
    expect(page({ limit: '2' })).toMatchObject({ data: [{ id: 'o4' }, { id: 'o3' }], has_more: true });
    expect(page({ limit: '2', starting_after: 'o3' })).toMatchObject({
      data: [{ id: 'o2' }, { id: 'o1' }],
      has_more: true,
    });
    expect(page({ limit: '2', starting_after: 'o1' })).toMatchObject({ data: [{ id: 'o0' }], has_more: false });
    expect(page({ limit: '2', ending_before: 'o1' })).toMatchObject({
      data: [{ id: 'o3' }, { id: 'o2' }],
      has_more: true,
    });
    expect(() => page({ limit: '101' })).toThrow(ApiError);
  });
});
