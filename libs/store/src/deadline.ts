/**
 * Waits for `attempt`, failing with `<what> timed out after <ms>ms` when it takes longer; a late
 * failure of the abandoned attempt is swallowed (it is no longer anyone's to handle).
 */
export async function withDeadline(attempt: Promise<unknown>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms}ms`)), ms);
  });
  attempt.catch(() => undefined);
  try {
    await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
