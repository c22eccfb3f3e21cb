// The local deployment's root system API key: generated once into .run/system-api-key (mode 0600).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './supervisor.mjs';

export const RUN_DIR = join(ROOT, '.run');
const KEY_FILE = join(RUN_DIR, 'system-api-key');

export function newSystemKey() {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const id = [...randomBytes(16)].map((b) => alphabet[b % alphabet.length]).join('');
  return `sk_live_${id}.${randomBytes(32).toString('base64url')}`;
}

export function localSystemKey() {
  if (existsSync(KEY_FILE)) return readFileSync(KEY_FILE, 'utf8').trim();
  mkdirSync(RUN_DIR, { recursive: true });
  const key = newSystemKey();
  writeFileSync(KEY_FILE, `${key}\n`, { mode: 0o600 });
  chmodSync(KEY_FILE, 0o600);
  return key;
}
