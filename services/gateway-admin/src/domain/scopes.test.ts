import { describe, expect, it } from 'vitest';
import {
  ALL_SCOPES,
  isScope,
  nonEmpty,
  ORGANIZATION_SCOPES,
  READ_SCOPES,
  roleAtLeast,
  scopesForRole,
  SYSTEM_SCOPES,
} from './scopes';

describe('scope families', () => {
  it('lists exactly the spec scopes, e.g. the api_key family with five actions', () => {
    expect(ALL_SCOPES.filter((s) => s.startsWith('api_key:'))).toEqual([
      'api_key:read',
      'api_key:create',
      'api_key:update',
      'api_key:delete',
      'api_key:execute',
    ]);
    expect(ALL_SCOPES).toContain('export:execute');
    expect(ALL_SCOPES).not.toContain('recurring:read');
    expect(ALL_SCOPES).not.toContain('site:execute');
    expect(isScope('site:read')).toBe(true);
    expect(isScope('site:execute')).toBe(false);
  });

  it('keeps system:* for system keys', () => {
    expect(ORGANIZATION_SCOPES.some((s) => s.startsWith('system:'))).toBe(false);
    expect(SYSTEM_SCOPES).toContain('system:execute');
  });

  it('gives dashboard Viewers read-only scopes and Editors/Admins every organization scope', () => {
    expect(scopesForRole('Viewer')).toEqual(READ_SCOPES);
    expect(READ_SCOPES.every((s) => s.endsWith(':read'))).toBe(true);
    expect(READ_SCOPES).toContain('invoice:read');
    expect(READ_SCOPES).not.toContain('system:read');
    expect(scopesForRole('Editor')).toEqual(ORGANIZATION_SCOPES);
    expect(scopesForRole('Admin')).toEqual(ORGANIZATION_SCOPES);
  });

  it('orders roles Viewer < Editor < Admin', () => {
    expect(roleAtLeast('Admin', 'Editor')).toBe(true);
    expect(roleAtLeast('Editor', 'Editor')).toBe(true);
    expect(roleAtLeast('Viewer', 'Editor')).toBe(false);
    expect(roleAtLeast('Editor', 'Admin')).toBe(false);
  });

  it('builds non-empty tuples for schema enums', () => {
    expect(nonEmpty(['a', 'b'])).toEqual(['a', 'b']);
    expect(() => nonEmpty([])).toThrow();
  });
});
