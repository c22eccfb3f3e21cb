import { z } from 'zod';
import { objectIdString, page, testMode, timestamp } from './common';
import { PROVIDER_TYPES } from '@paymesh/contracts';

/** A provider record: credentials only as masked hints; the webhook secret only on creation, when generated. */
export const provider = z.object({
  id: objectIdString,
  organizationId: objectIdString,
  type: z.string().describe('provider_a, provider_b, provider_c or provider_d'),
  name: z.string(),
  enabled: z.boolean(),
  testMode,
  credentialHints: z.record(z.string()),
  webhookUrl: z.string().describe('path under the Main Backend root where the provider delivers webhooks'),
  webhookSecret: z.string().optional().describe('only on creation, when the endpoint was registered at the provider'),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const providerPage = page(provider);

/** One credentials field as JSON Schema: a string, possibly one of a list, with its bounds and meaning. */
export const credentialField = z.object({
  type: z.literal('string'),
  enum: z.array(z.string()).optional(),
  minLength: z.number().int().optional(),
  maxLength: z.number().int().optional(),
  description: z.string().optional(),
});

/** The credentials object of one provider type as JSON Schema (the shape `POST /providers` validates). */
export const providerTypeSchema = z.object({
  type: z.enum(PROVIDER_TYPES),
  credentials: z.object({
    type: z.literal('object'),
    properties: z.record(credentialField),
    required: z.array(z.string()),
    additionalProperties: z.literal(false),
  }),
});

/** The provider types with the JSON Schema of their credentials. */
export const providerTypes = z.object({ items: z.array(providerTypeSchema) });
