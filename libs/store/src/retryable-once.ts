/**
 * A start-up step run at most once: the first `run` starts it, later calls share its promise, and a
 * failure forgets it so that the next call tries again.
 */
export class RetryableOnce<T> {
  private promise: Promise<T> | undefined;

  constructor(private readonly start: () => Promise<T>) {}

  /** A step that is done already, with `value`. */
  static done<T>(value: T): RetryableOnce<T> {
    const once = new RetryableOnce(() => Promise.resolve(value));
    void once.run();
    return once;
  }

  /** The step's promise: started by this call unless it is running or done already. */
  run(): Promise<T> {
    this.promise ??= this.start().catch((err: unknown) => {
      this.promise = undefined;
      throw err;
    });
    return this.promise;
  }

  /** Whether the step was started and has not failed (it may still be running). */
  get started(): boolean {
    return this.promise !== undefined;
  }

  /** Forgets the step, so that the next call runs it again (after what it set up was dropped). */
  reset(): void {
    this.promise = undefined;
  }
}
