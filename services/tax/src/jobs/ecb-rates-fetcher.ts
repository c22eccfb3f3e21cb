import type { Logger } from '@paymesh/core';
import { WorkLoop } from '@paymesh/runtime';
import type { TaxDeps } from '../app/deps';
import { storeEcbRates, type StoredEcbRates } from '../app/store-ecb-rates';
import { fetchEurofxref } from '../ecb/client';

export interface EcbRatesFetcherOptions {
  /** The eurofxref file to fetch (the 90-day history by default, see config.ts). */
  url: string;
  /** Time between two fetches. */
  intervalMs: number;
  /** Time one fetch may take. */
  deadlineMs: number;
  /** First wait after a failed fetch; doubles with each failure in a row, up to `intervalMs`. */
  firstRetryMs?: number;
}

/**
 * Fetches the ECB's reference rates at start and then every `intervalMs`, and keeps every day of
 * the file (storeEcbRates). A failed fetch (no answer, an error status, a file that does not parse)
 * is logged and tried again soon, then less and less often, never more rarely than the interval;
 * it never stops the service. Replicas may all run it: their writes of the same day are one.
 */
export class EcbRatesFetcher {
  private readonly log: Logger;
  private readonly loop: WorkLoop;
  private failures = 0;

  constructor(
    private readonly deps: Pick<TaxDeps, 'store' | 'clock' | 'logger'>,
    private readonly opts: EcbRatesFetcherOptions,
  ) {
    this.log = deps.logger.child({ component: 'ecb-rates' });
    this.loop = new WorkLoop(
      this.log,
      () => this.pass(),
      opts.intervalMs,
      'ECB rates pass failed; will retry',
      'tax/ecb-rates',
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One fetch and store; throws what went wrong. */
  async fetchOnce(): Promise<StoredEcbRates & { days: number; latest: string | null }> {
    const publications = await fetchEurofxref(this.opts.url, this.opts.deadlineMs);
    const stored = await storeEcbRates(this.deps, publications, this.opts.url);
    return { ...stored, days: publications.length, latest: publications[0]?.date ?? null };
  }

  /** Answers the wait before the next pass. */
  private async pass(): Promise<number> {
    try {
      const r = await this.fetchOnce();
      this.failures = 0;
      this.log.info({ url: this.opts.url, ...r }, 'ECB reference rates fetched');
      return this.opts.intervalMs;
    } catch (err) {
      this.failures++;
      const retryMs = Math.min(
        this.opts.intervalMs,
        (this.opts.firstRetryMs ?? 5_000) * 2 ** Math.min(this.failures - 1, 20),
      );
      this.log.warn(
        { err, url: this.opts.url, failures: this.failures, retryMs },
        'ECB reference rates fetch failed; will retry',
      );
      return retryMs;
    }
  }
}
