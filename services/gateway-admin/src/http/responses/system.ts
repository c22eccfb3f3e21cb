import { z } from 'zod';
import { ALL_SCOPES, nonEmpty } from '../../domain/scopes';
import { objectIdString, timestamp } from './common';

export const organizationCreated = z.object({
  organization: z.object({
    id: objectIdString,
    name: z.string(),
    licenseState: z.enum(['ACTIVE', 'BLOCKED', 'NOT_ACTIVATED']),
    createdAt: timestamp,
  }),
  admin: z.object({
    id: objectIdString,
    email: z.string(),
    role: z.literal('Admin'),
    enrollmentToken: z.string().optional().describe('one-time WebAuthn enrollment token; shown once'),
  }),
  apiKey: z
    .object({
      id: objectIdString,
      keyId: z.string(),
      name: z.string(),
      mode: z.enum(['live', 'test']),
      scopes: z.array(z.enum(nonEmpty(ALL_SCOPES))),
      token: z.string().describe('shown once'),
    })
    .optional(),
});
