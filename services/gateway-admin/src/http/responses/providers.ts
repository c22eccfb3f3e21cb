import { z } from 'zod';
import { objectIdString, page, testMode, timestamp } from './common';

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
