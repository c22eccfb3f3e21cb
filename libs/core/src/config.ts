import { z } from 'zod';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Parses an environment map through a zod schema once and returns a frozen, typed object.
 * Fails fast with one line per offending variable.
 */
export function loadConfig<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv): Readonly<z.infer<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(parsed.data) as Readonly<z.infer<S>>;
}

/** Boolean env values: true/false/1/0/yes/no. */
export const envBool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? def : v === 'true' || v === '1' || v === 'yes'));

export const envInt = (def: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return def;
      const n = Number(v);
      if (!Number.isInteger(n)) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `expected an integer, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });

/** Settings every service shares; each service extends this schema with its own keys. */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Datastore: a postgres:// or mongodb:// URL. */
  STORE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Prefix for this deployment's database/schema names (lets several meshes share one server). */
  STORE_NAMESPACE: z.string().regex(/^[a-z][a-z0-9_]{0,30}$/).default('paymesh'),
  /** Prefix for JetStream stream and consumer names. */
  BUS_NAMESPACE: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,30}$/).default('paymesh'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  GRPC_DEADLINE_MS: envInt(5000),
  /** Set by the local supervisor: stop when the supervising process goes away. */
  EXIT_WITH_PARENT: envBool(false),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;

/**
 * Development-only keyring for secrets at rest. Production deployments must set SECRETS_KEYRING;
 * services refuse to start in production without it.
 */
export const DEV_SECRETS_KEYRING = 'dev:cGF5bWVzaC1kZXZlbG9wbWVudC1vbmx5LWtleS0zMmI=';

export const secretsConfigSchema = z.object({
  SECRETS_KEYRING: z.string().optional(),
});

/** The keyring to use: the configured one, or the development key outside production. */
export function resolveKeyring(env: { NODE_ENV: string; SECRETS_KEYRING?: string | undefined }): string {
  if (env.SECRETS_KEYRING) return env.SECRETS_KEYRING;
  if (env.NODE_ENV === 'production') throw new ConfigError('SECRETS_KEYRING must be set in production');
  return DEV_SECRETS_KEYRING;
}
