import { z } from 'zod';
import { envBool, envInt, loadConfig } from '@paymesh/core';

const port = envInt(12111).pipe(z.number().int().min(0).max(65535));
const positive = (def: number) => envInt(def).pipe(z.number().int().min(1));
const nonNegative = (def: number) => envInt(def).pipe(z.number().int().min(0));

/** Every environment variable the sandbox reads. Nothing else in the package touches process.env. */
export const configSchema = z
  .object({
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    PROVIDER_A_SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
    PROVIDER_A_SANDBOX_PORT: port,
    /** Base URL buyers are sent to (the pay page lives at <url>/pay/<payment intent id>). */
    PROVIDER_A_SANDBOX_PUBLIC_URL: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
      .optional(),
    /** Total delivery attempts per event and endpoint (first try included). */
    PROVIDER_A_SANDBOX_WEBHOOK_MAX_ATTEMPTS: positive(5),
    /** Delay before the first retry; doubles on each further retry. */
    PROVIDER_A_SANDBOX_WEBHOOK_RETRY_BASE_MS: nonNegative(500),
    /** Upper bound for a single retry delay. */
    PROVIDER_A_SANDBOX_WEBHOOK_RETRY_MAX_MS: nonNegative(60_000),
    /** Time allowed for one delivery attempt before it counts as failed. */
    PROVIDER_A_SANDBOX_WEBHOOK_TIMEOUT_MS: positive(10_000),
    /** Set by the local supervisor: stop when it goes away. */
    EXIT_WITH_PARENT: envBool(false),
  })
  .transform((env) => ({
    logLevel: env.LOG_LEVEL,
    exitWithParent: env.EXIT_WITH_PARENT,
    host: env.PROVIDER_A_SANDBOX_HOST,
    port: env.PROVIDER_A_SANDBOX_PORT,
    publicUrl: env.PROVIDER_A_SANDBOX_PUBLIC_URL
      ? stripTrailingSlash(env.PROVIDER_A_SANDBOX_PUBLIC_URL)
      : env.PROVIDER_A_SANDBOX_PORT === 0
        ? undefined // resolved from the bound address once listening
        : defaultPublicUrl(env.PROVIDER_A_SANDBOX_HOST, env.PROVIDER_A_SANDBOX_PORT),
    webhooks: {
      maxAttempts: env.PROVIDER_A_SANDBOX_WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: env.PROVIDER_A_SANDBOX_WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: env.PROVIDER_A_SANDBOX_WEBHOOK_RETRY_MAX_MS,
      timeoutMs: env.PROVIDER_A_SANDBOX_WEBHOOK_TIMEOUT_MS,
    },
  }));

export interface WebhookSettings {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  timeoutMs: number;
}

export interface SandboxConfig {
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  host: string;
  port: number;
  /** Undefined means "derive from the address the server is listening on". */
  publicUrl: string | undefined;
  webhooks: WebhookSettings;
  /** Stop when the supervising process goes away (local runs). */
  exitWithParent: boolean;
}

export function loadSandboxConfig(env: NodeJS.ProcessEnv): SandboxConfig {
  return loadConfig(configSchema, env);
}

export function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** http://<host>:<port>, with wildcard bind addresses replaced by loopback so the URL is usable. */
export function defaultPublicUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}
