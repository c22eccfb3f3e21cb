import { createLogger, stopOnSignals } from '@paymesh/core';
import { loadSandboxConfig } from './config';
import { buildMailCatcher } from './server';

export { buildMailCatcher, type MailCatcher } from './server';
export { loadSandboxConfig, type MailSandboxConfig } from './config';

/** Starts the catcher from the environment and stops it cleanly on SIGTERM/SIGINT. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadSandboxConfig(env);
  const logger = createLogger({ service: 'sandbox-mail', level: config.logLevel });
  const catcher = buildMailCatcher(config, { logger });
  const { port, smtpPort } = await catcher.listen();
  logger.info({ host: config.host, port, smtpPort }, 'mail catcher listening');

  stopOnSignals(logger, () => catcher.close(), config.exitWithParent);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
