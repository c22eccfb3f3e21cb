import type { Logger } from 'pino';

/**
 * Under the local supervisor (`EXIT_WITH_PARENT=true`), a service stops itself when its parent
 * disappears (e.g. the supervisor was killed), so no orphaned processes keep ports busy.
 */
export function exitWithParent(enabled: boolean, logger: Logger, stop: (reason: string) => void): void {
  if (!enabled) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      logger.warn({ parent }, 'supervisor is gone; stopping');
      stop('parent exited');
    }
  }, 1000);
  timer.unref();
}

/**
 * Stops a standalone process (a sandbox) cleanly: the first SIGTERM/SIGINT, or the supervisor's
 * exit when `withParent`, runs `close` and exits 0 (1 when closing fails); a second signal exits at
 * once.
 */
export function stopOnSignals(logger: Logger, close: () => Promise<unknown>, withParent: boolean): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal; exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  exitWithParent(withParent, logger, () => stop('SIGTERM'));
}
