let inFlight = 0;

/**
 * Counts `task` as background work of this process until it settles: work no request, call or
 * message is waiting for (a work-loop pass, a delivery, a fire-and-forget cleanup). Whoever reads
 * the process's counters (the cost budget test) can then tell a quiet process from a busy one.
 */
export function trackBackground<T>(task: Promise<T>): Promise<T> {
  inFlight += 1;
  return task.finally(() => {
    inFlight -= 1;
  });
}

/** Background tasks of this process running now (see {@link trackBackground}). */
export function backgroundInFlight(): number {
  return inFlight;
}
