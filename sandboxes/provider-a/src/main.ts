import { createLogger, exitWithParent } from '@paymesh/core';
import { loadSandboxConfig } from './config';
import { buildServer } from './server';

export { buildServer, type BuildOptions } from './server';
export { loadSandboxConfig, type SandboxConfig } from './config';

/** Starts the sandbox from the environment and stops it cleanly on SIGTERM/SIGINT. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadSandboxConfig(env);
  const logger = createLogger({ service: 'sandbox-provider-a', level: config.logLevel });
  const app = buildServer(config, { logger });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : config.port;
  logger.info({ host: config.host, port, publicUrl: config.publicUrl ?? `(derived) port ${port}` }, 'provider_a sandbox listening');

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal; exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  exitWithParent(config.exitWithParent, logger, () => stop('SIGTERM'));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
