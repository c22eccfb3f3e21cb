import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors';
import { isObjectId, modeOf, objectId, pageOf, PAGE_DEFAULTS, requireObjectId, tenantOf, toWire } from './tenancy';

const ORG = '65f0c0ffee0000000000abcd';

describe('tenancy kit', () => {
  it('turns the wire tenant into a tenant key and back', () => {
    expect(tenantOf({ organizationId: ORG, testMode: true })).toEqual({ organizationId: ORG, mode: 'test' });
    expect(tenantOf({ organizationId: ORG, testMode: false })).toEqual({ organizationId: ORG, mode: 'live' });
    expect(toWire({ organizationId: ORG, mode: 'test' })).toEqual({ organizationId: ORG, testMode: true });
    // anything carrying a tenant (a principal) gives only the two wire fields
    const principal = { organizationId: ORG, mode: 'live' as const, role: 'Admin', scopes: ['site:read'] };
    expect(toWire(principal)).toEqual({ organizationId: ORG, testMode: false });
    expect(modeOf(true)).toBe('test');
  });

  it('refuses a tenant whose organization is not a 24-hex identifier', () => {
    expect(() => tenantOf({ organizationId: 'nope', testMode: false })).toThrow(
      'organizationId must be a 24-hex identifier',
    );
  });

  it('checks identifiers one way: the predicate, the throwing check and the schema agree', () => {
    for (const v of [ORG, ORG.toUpperCase(), `${ORG}0`, '', 42, null]) {
      const ok = isObjectId(v);
      expect(objectId().safeParse(v).success).toBe(ok);
      if (ok) expect(requireObjectId(v, 'siteId')).toBe(v);
      else expect(() => requireObjectId(v, 'siteId')).toThrow('siteId must be a 24-hex identifier');
    }
    expect(isObjectId(ORG)).toBe(true);
    expect(isObjectId(ORG.toUpperCase())).toBe(false);
    try {
      requireObjectId('x', 'siteId');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ field: 'siteId' });
    }
    expect(objectId('clientId').safeParse('x').error?.issues[0]?.message).toBe('clientId must be a 24-hex identifier');
    expect(objectId().safeParse('x').error?.issues[0]?.message).toBe('must be a 24-hex identifier');
  });

  it('pages with one default per list kind, clamped to 1..100', () => {
    expect(pageOf({}, 'records')).toEqual({ page: 1, limit: PAGE_DEFAULTS.records });
    expect(pageOf({ page: 0, limit: 0 }, 'transactions')).toEqual({ page: 1, limit: PAGE_DEFAULTS.transactions });
    expect(pageOf({ page: 3, limit: 500 }, 'records')).toEqual({ page: 3, limit: 100 });
    expect(PAGE_DEFAULTS).toEqual({ transactions: 10, records: 20 });
  });
});
