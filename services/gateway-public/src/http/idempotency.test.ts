import { describe, expect, it } from 'vitest';
import { publicKeyScope } from './idempotency';

describe('whose key it is on the Main Backend', () => {
  it('the checkout session the body names', () => {
    expect(publicKeyScope({ body: { sessionPublicId: 'cs_1', providerId: 'p', billingAddress: {} } })).toBe(
      'session:cs_1',
    );
    expect(publicKeyScope({ body: { sessionPublicId: 'cs_2' } })).not.toBe(
      publicKeyScope({ body: { sessionPublicId: 'cs_1' } }),
    );
  });

  it('a body without a usable session is a 400 before the key is looked at', () => {
    for (const body of [
      undefined,
      {},
      { sessionPublicId: '' },
      { sessionPublicId: 'x'.repeat(101) },
      { sessionPublicId: 7 },
    ]) {
      expect(() => publicKeyScope({ body }), JSON.stringify(body)).toThrow(
        expect.objectContaining({ kind: 'validation' }),
      );
    }
  });
});
