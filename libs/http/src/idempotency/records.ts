import { ConflictError, ErrorCode, isDomainError, systemClock, type Clock, type SealedValue } from '@paymesh/core';
import { decide, pollDelayMs, type RecordState } from './decide';

/** Collection of key records in the gateway's own store (one per gateway, shared by its replicas). */
export const IDEMPOTENCY_KEYS = 'idempotency_keys';

/**
 * Its spec for `ensureCollection`: the unique (scope, key) index is what makes one claim win when
 * two requests (or two replicas) race; `expiresAt` serves the cleanup.
 */
export const IDEMPOTENCY_COLLECTION: { name: string; indexes: { name: string; fields: string[]; unique?: boolean }[] } =
  {
    name: IDEMPOTENCY_KEYS,
    indexes: [
      { name: 'idempotency_keys_scope_key', fields: ['scope', 'key'], unique: true },
      { name: 'idempotency_keys_expires', fields: ['expiresAt'] },
    ],
  };

/** A kept answer as stored: its body sealed (it may hold a secret shown once, or personal data). */
export interface StoredAnswerDoc {
  status: number;
  contentType: string;
  /** How the sealed body text encodes the bytes: the text itself, or base64 of a binary body. */
  encoding: 'utf8' | 'base64';
  body: SealedValue;
}

export interface IdempotencyDoc {
  id: string;
  version: number;
  /** Whose key: the caller as the gateway identifies it (API key or user, organization, mode; buyer session). */
  scope: string;
  key: string;
  fingerprint: string;
  state: RecordState;
  leaseUntil: string;
  expiresAt: string;
  createdAt: string;
  answer: StoredAnswerDoc | null;
}

type DocFields = Omit<IdempotencyDoc, 'id' | 'version'>;

/** The part of the store's collection port the records use (a `Collection<IdempotencyDoc>` is one). */
export interface IdempotencyCollection {
  insert(doc: DocFields): Promise<IdempotencyDoc>;
  findOne(filter: { scope: string; key: string }): Promise<IdempotencyDoc | null>;
  find(filter: { expiresAt: { $lte: string } }, options: { limit: number }): Promise<{ items: IdempotencyDoc[] }>;
  replace(id: string, expectedVersion: number, next: DocFields): Promise<IdempotencyDoc>;
  deleteMany(filter: { id: { $in: string[] }; expiresAt: { $lte: string } }): Promise<number>;
}

/** Seals answers at rest (a `SecretBox` of @paymesh/core is one). */
export interface AnswerSealer {
  seal(plaintext: string, aad?: string): SealedValue;
  open(sealed: SealedValue, aad?: string): string;
}

/** An answer to keep or replay. */
export interface Answer {
  status: number;
  contentType: string;
  body: string | Buffer;
}

/**
 * A claim this process holds. While it is held its lease is renewed (every third of the lease), so
 * a long request keeps its key however long it runs; only a holder that died loses it.
 */
export class Claim {
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  /** Set once the claim is settled or lost: no more writes. */
  private over = false;

  constructor(
    /** The record as this holder last wrote it. */
    public doc: IdempotencyDoc,
  ) {}

  /** Runs store writes of this claim one after the other, each on the record as last written. */
  write<T>(op: (doc: IdempotencyDoc) => Promise<T>): Promise<T> {
    const next = this.queue.then(() => op(this.doc));
    this.queue = next.catch(() => undefined);
    return next;
  }

  get settled(): boolean {
    return this.over;
  }

  /** @internal */
  hold(renew: () => void, everyMs: number, forMs: number): void {
    const until = Date.now() + forMs;
    this.timer = setInterval(() => (Date.now() > until ? this.stop() : renew()), everyMs);
    this.timer.unref();
  }

  /** @internal */
  stop(): void {
    this.over = true;
    clearInterval(this.timer);
  }
}

export type Begun = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; answer: Answer };

export interface IdempotencyRecordsOptions {
  collection: IdempotencyCollection;
  sealer: AnswerSealer;
  clock?: Clock;
  /** How long a record answers (default 24 h); afterwards the key counts as unused. */
  ttlMs?: number;
  /** How long a pending claim's holder is presumed alive (default 60 s); then another request may take it over. */
  leaseMs?: number;
  /** How long a request waits for a pending claim of the same request before 409 IDEMPOTENCY_KEY_IN_PROGRESS (default 30 s). */
  waitMs?: number;
  /** Pause between looks at a pending claim (tests pass one that moves their clock). */
  sleep?: (ms: number) => Promise<void>;
  /** Longest a claim is renewed (default 1 h): a request that never answers loses its key then. */
  maxHoldMs?: number;
}

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
export const IDEMPOTENCY_LEASE_MS = 60_000;
export const IDEMPOTENCY_WAIT_MS = 30_000;
export const IDEMPOTENCY_MAX_HOLD_MS = 60 * 60_000;
/** Most expired records one cleanup pass removes. */
export const PURGE_BATCH = 500;

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function codeOf(err: unknown): string | undefined {
  return isDomainError(err) ? (err.code ?? err.kind) : undefined;
}

/**
 * Idempotency-Key records in the gateway's store: the first request with a key claims it (insert
 * under the unique (scope, key) index), runs, and stores its answer; a concurrent request with the
 * same key finds the claim and waits for the answer; a later one replays it. Claims whose holder
 * died (lease over), released claims (a 5xx) and expired records are taken over by compare-and-set,
 * so exactly one request runs at a time for a key, across processes.
 */
export class IdempotencyRecords {
  private readonly col: IdempotencyCollection;
  private readonly sealer: AnswerSealer;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly leaseMs: number;
  private readonly waitMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxHoldMs: number;

  constructor(opts: IdempotencyRecordsOptions) {
    this.col = opts.collection;
    this.sealer = opts.sealer;
    this.clock = opts.clock ?? systemClock;
    this.ttlMs = opts.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.leaseMs = opts.leaseMs ?? IDEMPOTENCY_LEASE_MS;
    this.waitMs = opts.waitMs ?? IDEMPOTENCY_WAIT_MS;
    this.sleep = opts.sleep ?? sleepFor;
    this.maxHoldMs = opts.maxHoldMs ?? IDEMPOTENCY_MAX_HOLD_MS;
  }

  /**
   * Claims `key` for this request, or answers the first request's answer. Throws ConflictError
   * IDEMPOTENCY_KEY_REUSED when the key belongs to another request, IDEMPOTENCY_KEY_IN_PROGRESS
   * when the first request is still running after the wait.
   */
  async begin(scope: string, key: string, fingerprint: string): Promise<Begun> {
    const deadline = this.clock.now().getTime() + this.waitMs;
    for (let waits = 0; ;) {
      const found = await this.col.findOne({ scope, key });
      const now = this.clock.now();
      switch (decide(found, fingerprint, now)) {
        case 'replay':
          if (found) return { kind: 'replay', answer: this.opened(found) };
          throw new Error('idempotency: a replay was decided without a record');
        case 'reused':
          throw new ConflictError('this Idempotency-Key was already used for another request (another body or route)', {
            code: ErrorCode.IDEMPOTENCY_KEY_REUSED,
          });
        case 'claim': {
          const claim = await this.claim(found, { scope, key, fingerprint }, now);
          if (claim) {
            claim.hold(
              () => void this.renew(claim).catch(() => undefined),
              Math.max(1, Math.floor(this.leaseMs / 3)),
              this.maxHoldMs,
            );
            return { kind: 'claimed', claim };
          }
          // Another request claimed it between our read and our write: look again.
          if (now.getTime() < deadline) continue;
          break;
        }
        case 'wait':
          if (now.getTime() < deadline) {
            await this.sleep(Math.min(pollDelayMs(waits++), Math.max(1, deadline - now.getTime())));
            continue;
          }
          break;
      }
      throw new ConflictError('a request with this Idempotency-Key is still in progress; retry shortly', {
        code: ErrorCode.IDEMPOTENCY_KEY_IN_PROGRESS,
      });
    }
  }

  /** Stores the answer of a claimed request; false when the claim was lost meanwhile (taken over after its lease ran out). */
  async complete(claim: Claim, answer: Answer): Promise<boolean> {
    claim.stop();
    const text = typeof answer.body === 'string' ? answer.body : answer.body.toString('base64');
    return claim.write((doc) => {
      const kept: StoredAnswerDoc = {
        status: answer.status,
        contentType: answer.contentType,
        encoding: typeof answer.body === 'string' ? 'utf8' : 'base64',
        body: this.sealer.seal(text, aad(doc)),
      };
      return this.settle(doc, {
        ...fields(doc),
        state: 'done',
        leaseUntil: this.clock.now().toISOString(),
        answer: kept,
      });
    });
  }

  /** Gives the key back (the answer is not kept): the next request with it runs again. */
  async release(claim: Claim): Promise<boolean> {
    claim.stop();
    return claim.write((doc) => {
      const now = this.clock.now().toISOString();
      return this.settle(doc, { ...fields(doc), state: 'released', leaseUntil: now, expiresAt: now, answer: null });
    });
  }

  /** Moves a held claim's lease on (the claim's timer calls it); false when the claim was lost or settled. */
  async renew(claim: Claim): Promise<boolean> {
    return claim.write(async (doc) => {
      if (claim.settled) return false;
      try {
        claim.doc = await this.col.replace(doc.id, doc.version, {
          ...fields(doc),
          leaseUntil: new Date(this.clock.now().getTime() + this.leaseMs).toISOString(),
        });
        return true;
      } catch (err) {
        const code = codeOf(err);
        if (code === ErrorCode.VERSION_CONFLICT || code === 'not_found') {
          claim.stop();
          return false;
        }
        throw err;
      }
    });
  }

  /** Removes up to `limit` expired records; returns how many went. A record taken over meanwhile stays (its expiresAt moved). */
  async purgeExpired(limit = PURGE_BATCH): Promise<number> {
    const now = this.clock.now().toISOString();
    const { items } = await this.col.find({ expiresAt: { $lte: now } }, { limit });
    if (items.length === 0) return 0;
    return this.col.deleteMany({ id: { $in: items.map((d) => d.id) }, expiresAt: { $lte: now } });
  }

  private async claim(
    found: IdempotencyDoc | null,
    who: { scope: string; key: string; fingerprint: string },
    now: Date,
  ): Promise<Claim | null> {
    const next: DocFields = {
      ...who,
      state: 'pending',
      leaseUntil: new Date(now.getTime() + this.leaseMs).toISOString(),
      expiresAt: new Date(now.getTime() + this.ttlMs).toISOString(),
      createdAt: now.toISOString(),
      answer: null,
    };
    try {
      const doc = found ? await this.col.replace(found.id, found.version, next) : await this.col.insert(next);
      return new Claim(doc);
    } catch (err) {
      const code = codeOf(err);
      if (code === ErrorCode.DUPLICATE_KEY || code === ErrorCode.VERSION_CONFLICT || code === 'not_found') return null;
      throw err;
    }
  }

  private async settle(doc: IdempotencyDoc, next: DocFields): Promise<boolean> {
    try {
      await this.col.replace(doc.id, doc.version, next);
      return true;
    } catch (err) {
      const code = codeOf(err);
      if (code === ErrorCode.VERSION_CONFLICT || code === 'not_found') return false;
      throw err;
    }
  }

  private opened(doc: IdempotencyDoc): Answer {
    const a = doc.answer;
    if (!a) throw new Error('a done idempotency record without its answer');
    const text = this.sealer.open(a.body, aad(doc));
    return {
      status: a.status,
      contentType: a.contentType,
      body: a.encoding === 'base64' ? Buffer.from(text, 'base64') : text,
    };
  }
}

function fields(doc: IdempotencyDoc): DocFields {
  const { id: _id, version: _version, ...rest } = doc;
  return rest;
}

/** Binds a sealed answer to its record: it cannot be moved to another caller's key. */
function aad(doc: Pick<IdempotencyDoc, 'scope' | 'key'>): string {
  return JSON.stringify(['idempotency', doc.scope, doc.key]);
}
