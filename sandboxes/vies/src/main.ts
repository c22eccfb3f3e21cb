import { createLogger, stopOnSignals } from '@paymesh/core';
import { loadSandboxConfig } from './config';
import { buildServer } from './server';

export { buildServer, type BuildOptions, REST_BASE_PATH } from './server';
export { loadSandboxConfig, type SandboxConfig } from './config';
export { TEST_NUMBERS } from './domain/test-numbers';
export { SEED_COMPANIES } from './domain/seed';

/** Starts the sandbox from the environment and stops it cleanly on SIGTERM/SIGINT. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadSandboxConfig(env);
  const logger = createLogger({ service: 'sandbox-vies', level: config.logLevel });
  const app = buildServer(config, { logger });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : config.port;
  logger.info({ host: config.host, port }, 'VIES sandbox listening');

  stopOnSignals(logger, () => app.close(), config.exitWithParent);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
