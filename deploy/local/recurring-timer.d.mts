export function recurringIntervalMs(env: Record<string, string | undefined>): number;
export function startRecurringTimer(opts: {
  adminBaseUrl: string;
  systemApiKey: string;
  intervalMs: number;
  log: (line: string) => void;
}): () => void;
