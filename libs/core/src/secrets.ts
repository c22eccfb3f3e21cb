import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** A value encrypted at rest: key id, nonce, ciphertext and tag (all base64url). */
export interface SealedValue {
  kid: string;
  iv: string;
  ct: string;
  tag: string;
}

/**
 * Parses a keyring `kid:base64key[,kid:base64key...]` into key id -> 32-byte key, in order (the
 * first entry is the active key). Throws on a malformed entry or a key of the wrong length.
 */
export function parseKeyring(keyring: string): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  for (const part of keyring
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const idx = part.indexOf(':');
    if (idx <= 0) throw new Error('keyring entries must look like kid:base64key');
    const kid = part.slice(0, idx);
    const key = Buffer.from(part.slice(idx + 1), 'base64');
    if (key.length !== 32) throw new Error(`key ${kid} must be 32 bytes (base64-encoded)`);
    keys.set(kid, key);
  }
  if (keys.size === 0) throw new Error('keyring is empty');
  return keys;
}

/**
 * AES-256-GCM envelope for secrets at rest with key rotation: the first key of the ring seals,
 * every key of the ring opens (so old values stay readable after a new key is put first).
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly activeKid: string;

  /**
   * @param keyring `kid:base64key[,kid:base64key...]`, each key 32 bytes; the first is active.
   */
  constructor(keyring: string) {
    this.keys = parseKeyring(keyring);
    this.activeKid = this.keys.keys().next().value as string;
  }

  seal(plaintext: string, aad = ''): SealedValue {
    const key = this.keys.get(this.activeKid);
    if (!key) throw new Error('active key missing');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    if (aad) cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      kid: this.activeKid,
      iv: iv.toString('base64url'),
      ct: ct.toString('base64url'),
      tag: cipher.getAuthTag().toString('base64url'),
    };
  }

  open(sealed: SealedValue, aad = ''): string {
    const key = this.keys.get(sealed.kid);
    if (!key) throw new Error(`no key ${sealed.kid} in the keyring`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64url'));
    if (aad) decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64url')), decipher.final()]).toString('utf8');
  }

  /**
   * Keyed digest (HMAC-SHA256, hex) of `value` under a key derived (HKDF) from the active key for
   * `purpose`: lets a secret be found by exact value without storing it. Prefixed with the key id.
   */
  digest(value: string, purpose: string): string {
    return this.digestWith(this.activeKid, value, purpose);
  }

  /** The digests of `value` under every key of the ring (to find values digested before a rotation). */
  digests(value: string, purpose: string): string[] {
    return [...this.keys.keys()].map((kid) => this.digestWith(kid, value, purpose));
  }

  private digestWith(kid: string, value: string, purpose: string): string {
    const key = this.keys.get(kid);
    if (!key) throw new Error(`no key ${kid} in the keyring`);
    const derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `paymesh digest:${purpose}`, 32));
    return `${kid.replace(/[^A-Za-z0-9]/g, '')}x${createHmac('sha256', derived).update(value, 'utf8').digest('hex')}`;
  }

  /** Whether the value was sealed with an older key and should be re-sealed. */
  needsRotation(sealed: SealedValue): boolean {
    return sealed.kid !== this.activeKid;
  }
}

/** SHA-256 hex digest; for high-entropy secrets (API key secrets, tokens) stored only as hashes. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function digestEquals(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && ba.length > 0 && timingSafeEqual(ba, bb);
}

/** Last characters of a secret, safe to show (e.g. "…a1b2"). */
export function secretHint(secret: string): string {
  return `…${secret.slice(-4)}`;
}
