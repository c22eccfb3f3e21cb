import { randomBytes } from 'node:crypto';
import { sha256Hex } from '@paymesh/core';
import type { Mode } from '@paymesh/core';

/** The data mode of a key (the shared `Mode`). */
export type KeyMode = Mode;

export interface ParsedApiKey {
  mode: KeyMode;
  keyId: string;
  secret: string;
}

const KEY_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const FORMAT = /^sk_(live|test)_([a-z0-9]{16})\.([A-Za-z0-9_-]{43})$/;

/** `sk_<mode>_<keyId>.<secret>`: keyId is 16 lower-case alphanumerics, secret 32 random bytes (base64url). */
export function parseApiKey(token: string): ParsedApiKey | null {
  const m = FORMAT.exec(token);
  if (!m || !m[1] || !m[2] || !m[3]) return null;
  return { mode: m[1] as KeyMode, keyId: m[2], secret: m[3] };
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith('sk_live_') || token.startsWith('sk_test_');
}

export function newKeyId(): string {
  const bytes = randomBytes(16);
  let out = '';
  for (const b of bytes) out += KEY_ID_ALPHABET[b % KEY_ID_ALPHABET.length];
  return out;
}

export function newKeySecret(): string {
  return randomBytes(32).toString('base64url');
}

export function formatApiKey(mode: KeyMode, keyId: string, secret: string): string {
  return `sk_${mode}_${keyId}.${secret}`;
}

/** Secrets have 256 bits of entropy, so a plain SHA-256 is a sufficient at-rest hash. */
export function hashKeySecret(secret: string): string {
  return sha256Hex(secret);
}
