import { ApiError } from '../errors';

export interface StoredResponse {
  status: number;
  body: string;
}

export interface ExecResult extends StoredResponse {
  /** False for outcomes that must not be replayed (parameter errors, internal errors). */
  store: boolean;
}

export interface IdempotentOutcome extends StoredResponse {
  replayed: boolean;
  /** Request id of the original request, when replayed. */
  originalRequestId: string | null;
}

type Entry =
  | { state: 'pending'; fingerprint: string; done: Promise<void> }
  | { state: 'done'; fingerprint: string; response: StoredResponse; requestId: string; storedAt: number };

const KEY_TTL_MS = 24 * 3600 * 1000;
export const MAX_KEY_LENGTH = 255;

/** Canonical JSON (sorted keys) so the same parameters always give the same fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function idempotencyMismatch(key: string): ApiError {
  return new ApiError(
    400,
    {
      type: 'idempotency_error',
      message:
        'Keys for idempotent requests can only be used with the same parameters they were first used with. ' +
        `Try using a key other than '${key}' if you meant to execute a different request.`,
    },
    false,
  );
}

/**
 * Stored responses by (account, Idempotency-Key). A second request with a key that is still being
 * processed waits for the first one and then gets its stored response.
 */
export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  async execute(
    scope: string,
    key: string,
    fingerprint: string,
    requestId: string,
    exec: () => Promise<ExecResult>,
  ): Promise<IdempotentOutcome> {
    const k = `${scope}\u0000${key}`;
    this.prune();
    for (;;) {
      const entry = this.entries.get(k);
      if (!entry) break;
      if (entry.fingerprint !== fingerprint) throw idempotencyMismatch(key);
      if (entry.state === 'pending') {
        await entry.done;
        continue;
      }
      return { ...entry.response, replayed: true, originalRequestId: entry.requestId };
    }
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    this.entries.set(k, { state: 'pending', fingerprint, done });
    try {
      const result = await exec();
      if (result.store) {
        this.entries.delete(k); // re-insert so insertion order follows storage time (used by prune)
        this.entries.set(k, {
          state: 'done',
          fingerprint,
          response: { status: result.status, body: result.body },
          requestId,
          storedAt: this.now(),
        });
      } else {
        this.entries.delete(k);
      }
      return { status: result.status, body: result.body, replayed: false, originalRequestId: null };
    } catch (err) {
      this.entries.delete(k);
      throw err;
    } finally {
      release();
    }
  }

  /** Drops keys older than 24 hours (entries are in storage order, so stop at the first fresh one). */
  private prune(): void {
    const cutoff = this.now() - KEY_TTL_MS;
    for (const [k, e] of this.entries) {
      if (e.state === 'pending') continue;
      if (e.storedAt >= cutoff) break;
      this.entries.delete(k);
    }
  }
}
