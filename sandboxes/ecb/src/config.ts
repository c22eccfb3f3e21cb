import { z } from 'zod';
import { envBool, envInt, loadConfig } from '@paymesh/core';

const port = envInt(12171).pipe(z.number().int().min(0).max(65535));

/** Every environment variable the sandbox reads. Nothing else in the package touches process.env. */
export const configSchema = z
  .object({
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ECB_SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
    ECB_SANDBOX_PORT: port,
    /** Set by the local supervisor: stop when it goes away. */
    EXIT_WITH_PARENT: envBool(false),
  })
  .transform((env) => ({
    logLevel: env.LOG_LEVEL,
    exitWithParent: env.EXIT_WITH_PARENT,
    host: env.ECB_SANDBOX_HOST,
    port: env.ECB_SANDBOX_PORT,
  }));

export interface SandboxConfig {
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  host: string;
  port: number;
  /** Stop when the supervising process goes away (local runs). */
  exitWithParent: boolean;
}

export function loadSandboxConfig(env: NodeJS.ProcessEnv): SandboxConfig {
  return loadConfig(configSchema, env);
}
