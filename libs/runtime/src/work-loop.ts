import { newRequestId, runWithContext, trackBackground, type Logger } from '@paymesh/core';

/**
 * A background loop that runs `pass` over and over: each pass returns how long to sleep before the
 * next one, `wake()` cuts a sleep short (work was just created), and a failing pass is logged and
 * retried after `retryMs`. All state of the work itself lives in the store, so a restart carries on.
 */
export class WorkLoop {
  private stopped = true;
  private loop: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(
    private readonly log: Logger,
    private readonly pass: () => Promise<number>,
    private readonly retryMs: number,
    private readonly failure = 'work pass failed; will retry',
    /** Name of the automatic process (audit trail actor, e.g. `payments-webhooks/reconciler`); each pass gets its own request ID. */
    private readonly process?: string,
  ) {}

  /** Whether stop() was called (long passes check it between steps). */
  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** Looks for work now. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops after the current pass and waits for it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let sleepMs = this.retryMs;
      try {
        const name = this.process;
        sleepMs = await trackBackground(
          name
            ? runWithContext({ requestId: newRequestId(), actor: { type: 'process', id: name }, operation: name }, () =>
                this.pass(),
              )
            : this.pass(),
        );
      } catch (err) {
        this.log.warn({ err }, this.failure);
      }
      if (this.stopped) break;
      await this.sleep(sleepMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
