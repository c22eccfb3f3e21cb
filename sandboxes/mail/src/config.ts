import { z } from 'zod';
import { envBool, envInt, loadConfig } from '@paymesh/core';

const port = (def: number) => envInt(def).pipe(z.number().int().min(0).max(65535));

/** Every environment variable the mail catcher reads. Nothing else in the package touches process.env. */
export const configSchema = z
  .object({
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    MAIL_SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
    /** Web view and JSON API. */
    MAIL_SANDBOX_PORT: port(12131),
    /** SMTP listener the services send to. */
    MAIL_SANDBOX_SMTP_PORT: port(12125),
    /** Messages kept; the oldest go first. */
    MAIL_SANDBOX_MAX_MESSAGES: envInt(500).pipe(z.number().int().min(1).max(100_000)),
    /** Set by the local supervisor: stop when it goes away. */
    EXIT_WITH_PARENT: envBool(false),
  })
  .transform((env) => ({
    logLevel: env.LOG_LEVEL,
    exitWithParent: env.EXIT_WITH_PARENT,
    host: env.MAIL_SANDBOX_HOST,
    port: env.MAIL_SANDBOX_PORT,
    smtpPort: env.MAIL_SANDBOX_SMTP_PORT,
    maxMessages: env.MAIL_SANDBOX_MAX_MESSAGES,
  }));

export interface MailSandboxConfig {
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  host: string;
  port: number;
  smtpPort: number;
  maxMessages: number;
  /** Stop when the supervising process goes away (local runs). */
  exitWithParent: boolean;
}

export function loadSandboxConfig(env: NodeJS.ProcessEnv): MailSandboxConfig {
  return loadConfig(configSchema, env);
}
