import { describe, expect, it } from 'vitest';
import { ofTenant } from './tenant-doc';

describe('ofTenant', () => {
  const key = { organizationId: 'a'.repeat(24), mode: 'live' as const };
  it("is true only for a document of the key's organization and mode", () => {
    expect(ofTenant({ organizationId: 'a'.repeat(24), mode: 'live' }, key)).toBe(true);
    expect(ofTenant({ organizationId: 'b'.repeat(24), mode: 'live' }, key)).toBe(false);
    expect(ofTenant({ organizationId: 'a'.repeat(24), mode: 'test' }, key)).toBe(false);
    expect(ofTenant(null, key)).toBe(false);
    expect(ofTenant(undefined, key)).toBe(false);
  });
});
