import { z } from 'zod';
import { parseKeyring } from './secrets';

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

/**
 * An integer setting that must lie from `min` to `max` (both included); unset or empty: `def`.
 * Out of range, the config fails with "`name` must be from `min` to `max`".
 */
export const envIntBounded = (def: number, min: number, max: number, name: string) =>
  envInt(def).refine((n) => n >= min && n <= max, `${name} must be from ${min} to ${max}`);

/** Settings every service shares; each service extends this schema with its own keys. */
export const baseConfigSchema = z.object({
  /** Unset means production: a deployment that forgets it gets the strict rules, not the lax ones. */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('production'),
  /**
   * Explicit opt-in to the published development secrets (dev keyring, dev JWT key), only honoured
   * with NODE_ENV development or test. `pnpm start` and the test harnesses set it; nothing else should.
   */
  PAYMESH_DEV_DEFAULTS: envBool(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** NATS server URL, or a comma-separated list of a cluster's servers (the client picks one and fails over). */
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Datastore: a postgres:// or mongodb:// URL. */
  STORE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /**
   * Most PostgreSQL connections one service process opens (its pool). Every replica of every
   * service counts against the server's `max_connections`; the test meshes use a smaller pool so
   * that several meshes fit on one server.
   */
  STORE_POOL_MAX: envInt(10),
  /** Prefix for this deployment's database/schema names (lets several meshes share one server). */
  STORE_NAMESPACE: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,30}$/)
    .default('paymesh'),
  /** Prefix for JetStream stream and consumer names. */
  BUS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_]{0,30}$/)
    .default('paymesh'),
  /**
   * Replicas of each JetStream stream (1 to 5; 3 on a three-node cluster). A start creates streams
   * with this many, raises fewer to it, and never lowers more (it logs a warning).
   */
  BUS_STREAM_REPLICAS: envIntBounded(1, 1, 5, 'BUS_STREAM_REPLICAS'),
  /**
   * Size cap of each JetStream stream (bytes; oldest messages are discarded beyond it). JetStream
   * reserves the cap of every stream (times its replicas) from its storage when the stream is made,
   * so many streams on one server (several meshes, the test suites) need a smaller cap.
   */
  BUS_STREAM_MAX_BYTES: envInt(1024 * 1024 * 1024).pipe(
    z
      .number()
      .int()
      .min(1024 * 1024, 'BUS_STREAM_MAX_BYTES must be at least 1 MiB (1048576)'),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  GRPC_DEADLINE_MS: envInt(5000),
  /**
   * Pause between the outbox relay's safety-net polls. Commits publish their events at once; the
   * poll only picks up what a crash or an outage left behind.
   */
  OUTBOX_POLL_INTERVAL_MS: envInt(5000).pipe(z.number().int().min(100).max(3_600_000)),
  /**
   * How long the mark of a published outbox event waits for a statement the service sends anyway
   * (its next transaction, the relay's next poll) before it is sent on its own. Keep it below 1 s:
   * other replicas' relays look at the outbox 1 s after a commit for events nobody published.
   */
  OUTBOX_MARK_DELAY_MS: envInt(250).pipe(z.number().int().min(0).max(3_600_000)),
  /**
   * After SIGTERM, how long the work in progress (inbound gRPC calls and HTTP requests, event
   * handlers, background passes) may take to finish before it is cut off. A stop that takes
   * longer than this and the gateways' HTTP_DRAIN_MS altogether ends with exit code 1.
   */
  SHUTDOWN_TIMEOUT_MS: envInt(20_000).pipe(z.number().int().min(1_000).max(600_000)),
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

/** What decides whether the published development secrets may be used. */
export interface DevSecretsGate {
  NODE_ENV: string;
  PAYMESH_DEV_DEFAULTS?: boolean | undefined;
}

/** Published development secrets are usable only with NODE_ENV development/test and the explicit opt-in. */
export function devSecretsAllowed(env: DevSecretsGate): boolean {
  return env.NODE_ENV !== 'production' && env.PAYMESH_DEV_DEFAULTS === true;
}

const DEV_OPT_IN_HINT =
  'local runs may opt into the published development secrets with NODE_ENV=development and PAYMESH_DEV_DEFAULTS=true';

/**
 * Refuses a configured secret that is one of the published development values unless the opt-in
 * is present (copying the development value into a deployment must not be a way around it).
 */
export function assertNotPublishedSecret(name: string, isPublished: boolean, env: DevSecretsGate): void {
  if (isPublished && !devSecretsAllowed(env)) {
    throw new ConfigError(`${name} is the published development value; set a secret of your own (${DEV_OPT_IN_HINT})`);
  }
}

/** Keys are compared as bytes: base64 has several spellings (padding, base64url) of one key. */
function containsDevKey(keyring: string): boolean {
  const dev = [...parseKeyring(DEV_SECRETS_KEYRING).values()];
  try {
    return [...parseKeyring(keyring).values()].some((key) => dev.some((d) => key.equals(d)));
  } catch {
    return false; // a malformed keyring fails where it is opened (SecretBox), with its own message
  }
}

/** The keyring to use: the configured one, or the development key when explicitly allowed. */
export function resolveKeyring(env: DevSecretsGate & { SECRETS_KEYRING?: string | undefined }): string {
  if (env.SECRETS_KEYRING) {
    assertNotPublishedSecret('SECRETS_KEYRING', containsDevKey(env.SECRETS_KEYRING), env);
    return env.SECRETS_KEYRING;
  }
  if (devSecretsAllowed(env)) return DEV_SECRETS_KEYRING;
  throw new ConfigError(`SECRETS_KEYRING must be set (${DEV_OPT_IN_HINT})`);
}
