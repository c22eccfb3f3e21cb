export function dropNamespace(namespace: string, opts?: { pgUrl?: string; natsUrl?: string }): Promise<void>;
export function dropStaleNamespaces(
  pattern: RegExp,
  opts: { olderThanMs: number; pgUrl?: string; natsUrl?: string; now?: number },
): Promise<string[]>;
