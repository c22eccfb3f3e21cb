import type { FastifyRequest } from 'fastify';
import { authError } from '../errors';

const SECRET_KEY = /^sk_(test|live)_[A-Za-z0-9_]+$/;

function redact(key: string): string {
  return key.length <= 12
    ? `${key.slice(0, 3)}****`
    : `${key.slice(0, 8)}${'*'.repeat(Math.min(key.length - 12, 24))}${key.slice(-4)}`;
}

/** The API key of a request: `Authorization: Bearer <key>` or HTTP Basic with the key as user name. */
export function extractApiKey(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const [scheme, value] = authorization.trim().split(/\s+/, 2);
  if (!scheme || !value) return undefined;
  if (scheme.toLowerCase() === 'bearer') return value;
  if (scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.split(':', 1)[0] || undefined;
  }
  return undefined;
}

/** Returns the secret key of the request or throws the provider's 401 error. */
export function authenticate(req: FastifyRequest): string {
  const header = req.headers.authorization;
  const key = extractApiKey(header);
  if (!key) {
    throw authError(
      header
        ? "Invalid API Key provided: use Bearer auth with your secret key (e.g. 'Authorization: Bearer sk_test_...')."
        : "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
    );
  }
  if (key.startsWith('pk_'))
    throw authError('This API call cannot be made with a publishable API key. Please use a secret API key.');
  if (!SECRET_KEY.test(key)) throw authError(`Invalid API Key provided: ${redact(key)}`);
  return key;
}
