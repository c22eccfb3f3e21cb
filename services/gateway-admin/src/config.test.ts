import { describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET, resolveJwtKey } from './config';

const own = 'a'.repeat(16) + 'b'.repeat(16);

describe('dashboard JWT key', () => {
  it('uses the published development key only with NODE_ENV development/test and PAYMESH_DEV_DEFAULTS', () => {
    expect(() => resolveJwtKey({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET must be set/);
    expect(() => resolveJwtKey({ NODE_ENV: 'development' })).toThrow(/PAYMESH_DEV_DEFAULTS/);
    expect(() => resolveJwtKey({ NODE_ENV: 'production', PAYMESH_DEV_DEFAULTS: true })).toThrow(
      /JWT_SECRET must be set/,
    );
    expect(new TextDecoder().decode(resolveJwtKey({ NODE_ENV: 'development', PAYMESH_DEV_DEFAULTS: true }))).toBe(
      DEV_JWT_SECRET,
    );
  });

  it('refuses the published key given as JWT_SECRET without the opt-in', () => {
    expect(() => resolveJwtKey({ NODE_ENV: 'production', JWT_SECRET: DEV_JWT_SECRET })).toThrow(
      /published development value/,
    );
    expect(() => resolveJwtKey({ NODE_ENV: 'test', JWT_SECRET: DEV_JWT_SECRET })).toThrow(
      /published development value/,
    );
    expect(new TextDecoder().decode(resolveJwtKey({ NODE_ENV: 'production', JWT_SECRET: own }))).toBe(own);
  });
});
