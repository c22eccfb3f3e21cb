/** One item waiting for its group's write, and how its caller learns the outcome. */
interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Group commit: callers hand in items one by one and each waits for the write that carries its
 * own; items handed in while a write is under way are written together by the next one. A lone
 * caller is written at once (after the current microtasks, so callers of the same tick share
 * it), so nothing waits on a timer, and under load N concurrent callers cost about one write per
 * write's round trip instead of N. A failed write fails exactly the callers whose items it carried.
 */
export class GroupCommit<T> {
  private readonly queue: Waiting<T>[] = [];
  private running = false;

  /**
   * @param write writes a group of items (in the order they were handed in), all or nothing.
   * @param maxItems most items in one group.
   */
  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxItems = 64,
  ) {
    if (!Number.isInteger(maxItems) || maxItems < 1) throw new RangeError('maxItems must be a positive integer');
  }

  /** Resolves once a write that carried `item` succeeded; rejects with that write's error. */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) {
        this.running = true;
        queueMicrotask(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxItems);
      try {
        await this.write(group.map((w) => w.item));
        for (const w of group) w.resolve();
      } catch (err) {
        for (const w of group) w.reject(err);
      }
    }
    this.running = false;
  }
}
