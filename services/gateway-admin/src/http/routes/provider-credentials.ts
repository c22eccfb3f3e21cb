import { z } from 'zod';
import { httpUrl, name, text } from '@paymesh/http';
import type { ProviderType } from '@paymesh/contracts';

/**
 * Request shapes of `POST /providers`, one strict object per provider type (docs/providers.md).
 * The gateway checks which fields exist and bounds them; payments-webhooks owns the finer rules
 * (key formats, test/live consistency, allowed API hosts) and answers 400 naming the field.
 */
const secret = (max = 256) => text(max, 1);
const apiBaseUrl = httpUrl(2048).optional();
const environment = z.enum(['sandbox', 'live']);

const providerA = z.object({ secretKey: secret(), webhookSecret: secret().optional(), apiBaseUrl }).strict();
const providerB = z.object({ apiKey: secret(), apiBaseUrl }).strict();
const providerC = z.object({ accessToken: secret(), webhookSecret: secret(), environment, apiBaseUrl }).strict();
const providerD = z
  .object({ clientId: secret(), clientSecret: secret(), webhookId: secret().optional(), environment, apiBaseUrl })
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
