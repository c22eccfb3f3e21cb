import { z } from 'zod';
import { ALL_SCOPES, nonEmpty, ROLES } from '../../domain/scopes';
import { objectIdString, page, timestamp } from './common';

/** An API key as the API shows it: never its secret or hash. */
export const apiKey = z.object({
  id: objectIdString,
  keyId: z.string(),
  kind: z.enum(['organization', 'system']),
  organizationId: objectIdString.nullable(),
  name: z.string(),
  mode: z.enum(['live', 'test']),
  role: z.enum(ROLES),
  scopes: z.array(z.enum(nonEmpty(ALL_SCOPES))),
  status: z.enum(['active', 'revoked']),
  prefix: z.string().describe('non-secret head of the token (sk_<mode>_<keyId>), to recognise a key'),
  createdAt: timestamp,
  updatedAt: timestamp,
  lastUsedAt: timestamp.nullable(),
  revokedAt: timestamp.nullable(),
  expiresAt: timestamp.nullable(),
});

export const apiKeyPage = page(apiKey);

/** Create and rotate: the full token, in this answer only. */
export const apiKeyWithToken = apiKey.extend({ token: z.string().describe('sk_<mode>_<keyId>.<secret>; shown once') });
