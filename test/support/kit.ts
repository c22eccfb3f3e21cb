/**
 * The test kit shared by lib, service, sandbox and mesh tests: where the test database is, waiting
 * for a condition instead of a fixed time, and "nothing else happened" proven by a sentinel.
 *
 * Import it relatively (`../../../test/support/kit`); it depends on nothing but Node.
 */
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

export { TEST_PG_URL } from '../../libs/store/src/test-url';

/** A fresh database (schema) name for one suite: `<prefix>_<10 hex>`, lower case as PostgreSQL keeps it. */
export function testDatabase(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export interface WaitOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Time between two checks (default 20 ms). */
  stepMs?: number;
  /** What is awaited, for the failure message ("the second delivery"). */
  what?: string;
}

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * Checks `condition` until it returns a truthy value and answers that value. A check that throws
 * counts as not yet; on timeout the error names what was awaited, how long, and the last value or
 * error seen, so a failure says what the test was waiting for rather than only that it took long.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  options: WaitOptions | string = {},
): Promise<Truthy<T>> {
  const opts = typeof options === 'string' ? { what: options } : options;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const stepMs = opts.stepMs ?? 20;
  const deadline = Date.now() + timeoutMs;
  let last: { value: unknown } | { error: unknown } = { value: undefined };
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as Truthy<T>;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() >= deadline) {
      const seen =
        'error' in last
          ? `last check threw: ${last.error instanceof Error ? last.error.message : inspect(last.error)}`
          : `last value: ${inspect(last.value, { depth: 3, breakLength: Infinity })}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${opts.what ?? 'the condition'} (${seen})`);
    }
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/**
 * "Nothing else happened", without sleeping: after the actions under test, `send` puts a sentinel on
 * the same ordered path (the same stream and consumer, the same queue, the same connection) as anything
 * those actions might still cause, and this waits until `arrived` sees it. Whatever came before the
 * sentinel on that path has been handled by then, so the assertions that follow see the final state.
 */
export async function afterSentinel(
  send: () => unknown,
  arrived: () => boolean | Promise<boolean>,
  options: Omit<WaitOptions, 'what'> & { what?: string } = {},
): Promise<void> {
  await send();
  await waitFor(arrived, { ...options, what: options.what ?? 'the sentinel sent after the actions under test' });
}

/**
 * Lets time pass when the passing of time is itself what the test is about: a TTL that must expire, a
 * backoff that must not have elapsed, a timer that must not fire. Never use it to wait for something to
 * happen (that is `waitFor`); `why` says which behaviour needs the time.
 */
export async function letTimePass(ms: number, why: string): Promise<void> {
  if (!why) throw new Error('letTimePass needs the reason the test waits');
  await new Promise((resolve) => setTimeout(resolve, ms));
}
