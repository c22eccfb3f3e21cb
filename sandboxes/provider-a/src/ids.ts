import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string (rejection sampling keeps the distribution uniform). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = 'pi' | 'ch' | 're' | 'dp' | 'pm' | 'evt' | 'we' | 'req';

/** Provider-style object id, e.g. pi_3Pq7xYzAbCdEfGhIjKlMnOpQ. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}

export function newClientSecret(paymentIntentId: string): string {
  return `${paymentIntentId}_secret_${randomBase62(25)}`;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBase62(32)}`;
}
