import { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { httpUrl, name, text } from '@paymesh/http';
import { PROVIDER_TYPES, type ProviderType } from '@paymesh/contracts';
import { providerTypeSchema } from '../responses/providers';

/**
 * Request shapes of `POST /providers`, one strict object per provider type (docs/providers.md).
 * The gateway checks which fields exist and bounds them; payments-webhooks owns the finer rules
 * (key formats, test/live consistency, allowed API hosts) and answers 400 naming the field.
 */
const secret = (what: string, max = 256) => text(max, 1).describe(what);
const apiBaseUrl = httpUrl(2048)
  .optional()
  .describe("origin of the provider's API (optional; the service default otherwise)");
const environment = z.enum(['sandbox', 'live']).describe('sandbox for a test-mode record, live for a live one');

const providerA = z
  .object({
    secretKey: secret('secret API key (sk_test_… or sk_live_…, the mode of the record)'),
    webhookSecret: secret(
      'webhook signing secret (whsec_…); without it the endpoint is registered at the provider',
    ).optional(),
    apiBaseUrl,
  })
  .strict();
const providerB = z
  .object({ apiKey: secret('API key (test_… or live_…, the mode of the record)'), apiBaseUrl })
  .strict();
const providerC = z
  .object({
    accessToken: secret('access token (sandbox_… or live_…)'),
    webhookSecret: secret("the provider endpoint's webhook secret"),
    environment,
    apiBaseUrl,
  })
  .strict();
const providerD = z
  .object({
    clientId: secret('OAuth client id'),
    clientSecret: secret('OAuth client secret'),
    webhookId: secret('webhook id; without it the endpoint is registered at the provider').optional(),
    environment,
    apiBaseUrl,
  })
  .strict();

const variant = <T extends string, C extends z.ZodTypeAny>(type: T, credentials: C) =>
  z.object({ type: z.literal(type), name: name(200), credentials }).strict();

/** One credentials shape per type of the one list in @paymesh/contracts (a missing type fails to compile). */
const CREDENTIALS = {
  provider_a: providerA,
  provider_b: providerB,
  provider_c: providerC,
  provider_d: providerD,
} satisfies Record<ProviderType, z.ZodTypeAny>;

export const createProviderBody = z.discriminatedUnion('type', [
  variant('provider_a', CREDENTIALS.provider_a),
  variant('provider_b', CREDENTIALS.provider_b),
  variant('provider_c', CREDENTIALS.provider_c),
  variant('provider_d', CREDENTIALS.provider_d),
]);

/**
 * The credentials schemas of every provider type, derived from the very zod objects above that
 * `POST /providers` validates with (clients such as the dashboard build their forms from them).
 */
export const PROVIDER_CREDENTIAL_SCHEMAS = PROVIDER_TYPES.map((type) =>
  providerTypeSchema.parse({
    type,
    credentials: {
      required: [],
      ...zodToJsonSchema(CREDENTIALS[type], { target: 'openApi3', $refStrategy: 'none' }),
    },
  }),
);
