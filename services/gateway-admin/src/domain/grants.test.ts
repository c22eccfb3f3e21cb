import { describe, expect, it } from 'vitest';
import { ForbiddenError, ValidationError } from '@paymesh/core';
import { checkGrant, type Grantor } from './grants';
import { ORGANIZATION_SCOPES, SYSTEM_SCOPES, type Scope } from './scopes';

const admin = (scopes: readonly Scope[] = ORGANIZATION_SCOPES, mode: 'live' | 'test' = 'live'): Grantor => ({
  role: 'Admin',
  scopes: new Set(scopes),
  mode,
});

describe('checkGrant: a key can never mint a stronger key', () => {
  it('lets a full-scope Admin issue any organization key of any role and mode', () => {
    expect(() =>
      checkGrant(admin(), { kind: 'organization', role: 'Admin', scopes: ORGANIZATION_SCOPES, mode: 'live' }),
    ).not.toThrow();
    expect(() =>
      checkGrant(admin(), { kind: 'organization', role: 'Viewer', scopes: ['site:read'], mode: 'test' }),
    ).not.toThrow();
  });

  it('refuses scopes the caller does not hold (403)', () => {
    const err = (() => {
      try {
        checkGrant(admin(['api_key:create', 'site:read']), {
          kind: 'organization',
          role: 'Admin',
          scopes: ['site:read', 'invoice:create'],
          mode: 'live',
        });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ForbiddenError);
    expect((err as Error).message).toContain('invoice:create');
    expect((err as Error).message).not.toContain('site:read');
  });

  it('refuses a role above the caller (403)', () => {
    expect(() =>
      checkGrant(
        { role: 'Editor', scopes: new Set(ORGANIZATION_SCOPES), mode: 'live' },
        { kind: 'organization', role: 'Admin', scopes: ['site:read'], mode: 'live' },
      ),
    ).toThrow(ForbiddenError);
    expect(() =>
      checkGrant(
        { role: 'Editor', scopes: new Set(ORGANIZATION_SCOPES), mode: 'live' },
        { kind: 'organization', role: 'Editor', scopes: ['site:read'], mode: 'live' },
      ),
    ).not.toThrow();
  });

  it('keeps system scopes off organization keys and rejects empty scope lists (400 naming scopes)', () => {
    expect(() =>
      checkGrant(admin(SYSTEM_SCOPES), {
        kind: 'organization',
        role: 'Admin',
        scopes: ['system:execute'],
        mode: 'live',
      }),
    ).toThrow(/body\.scopes: not allowed for organization keys: system:execute/);
    expect(() =>
      checkGrant(admin(SYSTEM_SCOPES), { kind: 'system', role: 'Admin', scopes: ['system:execute'], mode: 'live' }),
    ).not.toThrow();
    expect(() => checkGrant(admin(), { kind: 'organization', role: 'Admin', scopes: [], mode: 'live' })).toThrow(
      ValidationError,
    );
  });

  it('lets a test-mode caller issue test keys only', () => {
    expect(() =>
      checkGrant(admin(ORGANIZATION_SCOPES, 'test'), {
        kind: 'organization',
        role: 'Admin',
        scopes: ['site:read'],
        mode: 'live',
      }),
    ).toThrow(/test keys/);
    expect(() =>
      checkGrant(admin(ORGANIZATION_SCOPES, 'test'), {
        kind: 'organization',
        role: 'Admin',
        scopes: ['site:read'],
        mode: 'test',
      }),
    ).not.toThrow();
  });
});
