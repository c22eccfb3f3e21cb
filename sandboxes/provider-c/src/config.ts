import { z } from 'zod';
import { envBool, envInt, loadConfig } from '@paymesh/core';

const port = envInt(12151).pipe(z.number().int().min(0).max(65535));
const positive = (def: number) => envInt(def).pipe(z.number().int().min(1));
const nonNegative = (def: number) => envInt(def).pipe(z.number().int().min(0));

/** Every environment variable the sandbox reads. Nothing else in the package touches process.env. */
export const configSchema = z
  .object({
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    PROVIDER_C_SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
    PROVIDER_C_SANDBOX_PORT: port,
    /** Base URL buyers are sent to (the payer authorisation page lives at <url>/flow/<flow id>). */
    PROVIDER_C_SANDBOX_PUBLIC_URL: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
      .optional(),
    /** Total webhook call attempts per change (first try included). */
    PROVIDER_C_SANDBOX_WEBHOOK_MAX_ATTEMPTS: positive(5),
    /** Delay before the first retry; doubles on each further retry. */
    PROVIDER_C_SANDBOX_WEBHOOK_RETRY_BASE_MS: nonNegative(500),
    /** Time allowed for one webhook call. */
    PROVIDER_C_SANDBOX_WEBHOOK_TIMEOUT_MS: positive(10_000),
    /** Time from the payer's authorisation to the collection's result; 0 turns automatic collection off (use the collect control). */
    PROVIDER_C_SANDBOX_COLLECTION_DELAY_MS: nonNegative(5000),
    /**
     * true: a reused Idempotency-Key replays the first answer to the same request. false: any reuse
     * is 409 idempotent_creation_conflict, as the real provider answers.
     */
    PROVIDER_C_SANDBOX_IDEMPOTENT_REPLAY: envBool(true),
    /** Set by the local supervisor: stop when it goes away. */
    EXIT_WITH_PARENT: envBool(false),
  })
  .transform((env) => ({
    logLevel: env.LOG_LEVEL,
    exitWithParent: env.EXIT_WITH_PARENT,
    host: env.PROVIDER_C_SANDBOX_HOST,
    port: env.PROVIDER_C_SANDBOX_PORT,
    publicUrl: env.PROVIDER_C_SANDBOX_PUBLIC_URL?.replace(/\/+$/, ''),
    idempotentReplay: env.PROVIDER_C_SANDBOX_IDEMPOTENT_REPLAY,
    collectionDelayMs:
      env.PROVIDER_C_SANDBOX_COLLECTION_DELAY_MS === 0 ? null : env.PROVIDER_C_SANDBOX_COLLECTION_DELAY_MS,
    webhooks: {
      maxAttempts: env.PROVIDER_C_SANDBOX_WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: env.PROVIDER_C_SANDBOX_WEBHOOK_RETRY_BASE_MS,
      timeoutMs: env.PROVIDER_C_SANDBOX_WEBHOOK_TIMEOUT_MS,
    },
  }));

export type SandboxConfig = z.output<typeof configSchema>;
export type WebhookSettings = SandboxConfig['webhooks'];

export function loadSandboxConfig(env: NodeJS.ProcessEnv): SandboxConfig {
  return loadConfig(configSchema, env);
}

/** http://<host>:<port>, with wildcard bind addresses replaced by loopback so the URL is usable. */
export function defaultPublicUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}
