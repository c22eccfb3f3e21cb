export function dropNamespace(namespace: string, opts?: { pgUrl?: string; natsUrl?: string }): Promise<void>;
