import { z } from 'zod';
import { envBool, envInt, ipnTargetsConfigSchema, loadConfig } from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema } from '@paymesh/runtime';

const positiveInt = (def: number) => envInt(def).pipe(z.number().int().min(1));
/** An unset or empty variable (compose passes `${X:-}` as "") is absent. */
const blankIsAbsent = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());
const optionalPort = blankIsAbsent(z.coerce.number().int().min(1).max(65535));

/** The backends notifications-ipn calls over gRPC: the only addresses its config has (see `downstreamAddrsSchema`). */
export const downstream = ['checkout'] as const;

export const configSchema = backendConfigSchema('notifications-ipn')
  .merge(downstreamAddrsSchema(downstream))
  .merge(ipnTargetsConfigSchema)
  .extend({
    /** Delay before attempt 2; attempt 3 follows after twice this. */
    IPN_BACKOFF_BASE_MS: positiveInt(10_000),
    /** Whole-request timeout of one IPN POST. */
    IPN_TIMEOUT_MS: positiveInt(10_000),
    /** Longest pause between two scans for due deliveries. */
    IPN_POLL_INTERVAL_MS: positiveInt(1_000),
    /** Deliveries sent at once by one replica. */
    IPN_CONCURRENCY: positiveInt(8),

    /** SMTP server e-mail is sent through; without it (and without the local mail catcher) e-mail is refused. */
    SMTP_HOST: blankIsAbsent(z.string().min(1)),
    /** Default 587, or 465 with SMTP_SECURE. */
    SMTP_PORT: optionalPort,
    /** TLS from the first byte (usually port 465); otherwise STARTTLS is used when the server offers it. */
    SMTP_SECURE: envBool(false),
    SMTP_USER: blankIsAbsent(z.string().min(1)),
    SMTP_PASS: blankIsAbsent(z.string()),
    /** Sender of every e-mail ("Name <address>" or an address). */
    MAIL_FROM: z.string().min(3).default('Paymesh <no-reply@paymesh.localhost>'),
    /** Set by the local supervisor when the mail catcher runs; outside production it is the default SMTP server. */
    MAIL_SANDBOX_SMTP_PORT: optionalPort,
    /** SMTP attempts of one e-mail before it fails. */
    EMAIL_MAX_ATTEMPTS: envInt(5).pipe(z.number().int().min(1).max(20)),
    /** Delay before attempt 2; each later attempt waits twice as long as the one before. */
    EMAIL_BACKOFF_BASE_MS: positiveInt(60_000),
    /** Longest one SMTP conversation (connect, greeting, each command) may take. */
    EMAIL_TIMEOUT_MS: positiveInt(30_000),
    EMAIL_POLL_INTERVAL_MS: positiveInt(1_000),
    EMAIL_CONCURRENCY: positiveInt(4),
  })
  .transform((env) => {
    const catcher = env.NODE_ENV !== 'production' && !env.SMTP_HOST && env.MAIL_SANDBOX_SMTP_PORT !== undefined;
    const host = env.SMTP_HOST ?? (catcher ? '127.0.0.1' : undefined);
    return {
      ...env,
      SMTP_HOST: host,
      SMTP_PORT: env.SMTP_PORT ?? (catcher ? env.MAIL_SANDBOX_SMTP_PORT : undefined) ?? (env.SMTP_SECURE ? 465 : 587),
    };
  })
  .superRefine((env, ctx) => {
    if (env.SMTP_USER && env.SMTP_PASS === undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['SMTP_PASS'], message: 'is required with SMTP_USER' });
    }
  });

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
