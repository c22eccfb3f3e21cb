import { describe, expect, it } from 'vitest';
import { magicLinkRefusal, magicLinkTtlMinutes, type MagicLinkConditions } from './portal-link';

describe('magic-link TTL', () => {
  it.each([
    // requested, default, max -> effective
    [undefined, 60, 1440, 60],
    [15, 60, 1440, 15],
    [60, 60, 1440, 60],
    [61, 60, 1440, 60],
    [5000, 60, 1440, 60],
    [undefined, 2000, 1440, 1440],
    [1500, 2000, 1440, 1440],
    [1, 60, 1440, 1],
  ])('requested %s with default %s and maximum %s -> %s', (requested, def, max, want) => {
    expect(magicLinkTtlMinutes(requested, def, max)).toBe(want);
  });
});

describe('magic-link conditions', () => {
  const ok: MagicLinkConditions = {
    systemPortal: true,
    systemMagicLinks: true,
    organizationPortal: true,
    organizationMagicLinks: true,
    visibleItems: 1,
  };
  it('allows a link only when every switch is on and the e-mail has something to see', () => {
    expect(magicLinkRefusal(ok)).toBeNull();
    expect(magicLinkRefusal({ ...ok, systemPortal: false })).toBe('system_portal');
    expect(magicLinkRefusal({ ...ok, systemMagicLinks: false })).toBe('system_magic_links');
    expect(magicLinkRefusal({ ...ok, organizationPortal: false })).toBe('organization_portal');
    expect(magicLinkRefusal({ ...ok, organizationMagicLinks: false })).toBe('organization_magic_links');
    expect(magicLinkRefusal({ ...ok, visibleItems: 0 })).toBe('nothing_visible');
  });
});
