import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestEquals, SecretBox, sha256Hex } from './secrets';
import { baseConfigSchema, DEV_SECRETS_KEYRING, resolveKeyring } from './config';

const key = () => randomBytes(32).toString('base64');

describe('SecretBox', () => {
  it('round-trips and binds the value to its associated data', () => {
    const box = new SecretBox(`k1:${key()}`);
    const sealed = box.seal('whsec_abc', 'site-1');
    expect(sealed.ct).not.toContain('whsec');
    expect(box.open(sealed, 'site-1')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'site-2')).toThrow();
  });

  it('rotates: a new first key seals, old keys still open', () => {
    const old = `k1:${key()}`;
    const sealedOld = new SecretBox(old).seal('secret');
    const rotated = new SecretBox(`k2:${key()},${old}`);
    expect(rotated.open(sealedOld)).toBe('secret');
    expect(rotated.needsRotation(sealedOld)).toBe(true);
    expect(rotated.seal('x').kid).toBe('k2');
  });

  it('rejects tampering and malformed keyrings', () => {
    const box = new SecretBox(`k1:${key()}`);
    const sealed = box.seal('value');
    const flipped = {
      ...sealed,
      ct: Buffer.from(Buffer.from(sealed.ct, 'base64url').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64url'),
    };
    expect(() => box.open(flipped)).toThrow();
    expect(() => new SecretBox('k1:c2hvcnQ=')).toThrow(/32 bytes/);
    expect(() => new SecretBox('')).toThrow(/empty/);
  });

  it('uses the published development keyring only with NODE_ENV development/test and the explicit opt-in', () => {
    expect(() => resolveKeyring({ NODE_ENV: 'production' })).toThrow(/SECRETS_KEYRING must be set/);
    expect(() => resolveKeyring({ NODE_ENV: 'development' })).toThrow(/PAYMESH_DEV_DEFAULTS/);
    expect(() => resolveKeyring({ NODE_ENV: 'production', PAYMESH_DEV_DEFAULTS: true })).toThrow(/SECRETS_KEYRING/);
    expect(resolveKeyring({ NODE_ENV: 'development', PAYMESH_DEV_DEFAULTS: true })).toBe(DEV_SECRETS_KEYRING);
    expect(resolveKeyring({ NODE_ENV: 'test', PAYMESH_DEV_DEFAULTS: true })).toBe(DEV_SECRETS_KEYRING);
  });

  it('refuses the published development key when configured explicitly, even behind another kid or key', () => {
    const own = `k1:${key()}`;
    expect(resolveKeyring({ NODE_ENV: 'production', SECRETS_KEYRING: own })).toBe(own);
    expect(() => resolveKeyring({ NODE_ENV: 'production', SECRETS_KEYRING: DEV_SECRETS_KEYRING })).toThrow(
      /published development value/,
    );
    const disguised = `${own},mine:${DEV_SECRETS_KEYRING.split(':')[1]}`;
    expect(() => resolveKeyring({ NODE_ENV: 'development', SECRETS_KEYRING: disguised })).toThrow(
      /published development value/,
    );
    expect(resolveKeyring({ NODE_ENV: 'development', PAYMESH_DEV_DEFAULTS: true, SECRETS_KEYRING: disguised })).toBe(
      disguised,
    );
    // Another spelling of the same bytes (no padding, base64url) is the same key.
    const respelled = `k2:${Buffer.from(DEV_SECRETS_KEYRING.split(':')[1]!, 'base64').toString('base64url')}`;
    expect(() => resolveKeyring({ NODE_ENV: 'production', SECRETS_KEYRING: respelled })).toThrow(
      /published development value/,
    );
  });

  it('defaults NODE_ENV to production and only takes the opt-in as a boolean', () => {
    const c = baseConfigSchema.parse({});
    expect(c.NODE_ENV).toBe('production');
    expect(c.PAYMESH_DEV_DEFAULTS).toBe(false);
    expect(baseConfigSchema.parse({ NODE_ENV: 'development', PAYMESH_DEV_DEFAULTS: 'true' }).PAYMESH_DEV_DEFAULTS).toBe(
      true,
    );
    expect(baseConfigSchema.safeParse({ PAYMESH_DEV_DEFAULTS: 'please' }).success).toBe(false);
  });

  it('compares digests in constant time and by value', () => {
    expect(digestEquals(sha256Hex('a'), sha256Hex('a'))).toBe(true);
    expect(digestEquals(sha256Hex('a'), sha256Hex('b'))).toBe(false);
    expect(digestEquals('', '')).toBe(false);
  });

  it('digests values per purpose, stably, and finds digests made before a rotation', () => {
    const old = `k1:${key()}`;
    const box = new SecretBox(old);
    const d = box.digest('DE136695976', 'client.taxId');
    expect(d).toMatch(/^k1x[0-9a-f]{64}$/);
    expect(box.digest('DE136695976', 'client.taxId')).toBe(d);
    expect(box.digest('DE136695977', 'client.taxId')).not.toBe(d);
    expect(box.digest('DE136695976', 'other')).not.toBe(d);
    const rotated = new SecretBox(`k2:${key()},${old}`);
    expect(rotated.digest('DE136695976', 'client.taxId')).not.toBe(d);
    expect(rotated.digests('DE136695976', 'client.taxId')).toContain(d);
  });
});
