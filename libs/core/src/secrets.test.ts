import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestEquals, SecretBox, sha256Hex } from './secrets';
import { resolveKeyring } from './config';

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
    const flipped = { ...sealed, ct: Buffer.from(Buffer.from(sealed.ct, 'base64url').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64url') };
    expect(() => box.open(flipped)).toThrow();
    expect(() => new SecretBox('k1:c2hvcnQ=')).toThrow(/32 bytes/);
    expect(() => new SecretBox('')).toThrow(/empty/);
  });

  it('requires a configured keyring in production only', () => {
    expect(() => resolveKeyring({ NODE_ENV: 'production' })).toThrow(/SECRETS_KEYRING/);
    expect(resolveKeyring({ NODE_ENV: 'development' })).toMatch(/^dev:/);
  });

  it('compares digests in constant time and by value', () => {
    expect(digestEquals(sha256Hex('a'), sha256Hex('a'))).toBe(true);
    expect(digestEquals(sha256Hex('a'), sha256Hex('b'))).toBe(false);
    expect(digestEquals('', '')).toBe(false);
  });
});
