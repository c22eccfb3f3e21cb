import { createLogger, stopOnSignals } from '@paymesh/core';
import { loadSandboxConfig } from './config';
import { buildServer } from './server';

export { buildServer, type BuildOptions, FILES_PATH } from './server';
export { loadSandboxConfig, type SandboxConfig } from './config';
export { CURRENCIES, seededRate, seededRates } from './domain/rates';
export { isPublicationDay, lastPublicationDays } from './domain/calendar';
export { eurofxrefXml, type Publication } from './domain/xml';

/** Starts the sandbox from the environment and stops it cleanly on SIGTERM/SIGINT. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadSandboxConfig(env);
  const logger = createLogger({ service: 'sandbox-ecb', level: config.logLevel });
  const app = buildServer(config, { logger });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : config.port;
  logger.info({ host: config.host, port }, 'ECB sandbox listening');

  stopOnSignals(logger, () => app.close(), config.exitWithParent);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
