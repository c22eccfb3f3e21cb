import { createLogger, stopOnSignals } from '@paymesh/core';
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
  logger.info(
    { host: config.host, port, publicUrl: config.publicUrl ?? `(derived) port ${port}` },
    'provider_a sandbox listening',
  );

  stopOnSignals(logger, () => app.close(), config.exitWithParent);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
