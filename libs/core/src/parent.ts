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
