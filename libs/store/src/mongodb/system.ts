import { ObjectId, type ChangeStream, type ClientSession, type Db } from 'mongodb';
import { ValidationError } from '@paymesh/core';
import { assertDocId } from '../documents';
import type { StoreLogger } from '../logger';
import type { OutboxEvent } from '../port';
import { isDuplicateKey } from './collection';

interface OutboxDoc {
  _id: string;
  /** Tie-breaker within one millisecond: ObjectIds from one process increase monotonically. */
  seq: ObjectId;
  subject: string;
  payload: unknown;
  headers: Record<string, string>;
  createdAt: Date;
  publishedAt: Date | null;
  /** Writer's origin, told to change-stream watchers. */
  origin?: string;
}

interface SequenceDoc {
  _id: string;
  value: number;
}

const outbox = (db: Db) => db.collection<OutboxDoc>('_outbox');
const sequences = (db: Db) => db.collection<SequenceDoc>('_sequences');

export async function initSystem(db: Db): Promise<void> {
  await outbox(db).createIndex({ publishedAt: 1, createdAt: 1, seq: 1 }, { name: 'pending' });
}

export async function enqueue(
  db: Db,
  session: ClientSession,
  events: Omit<OutboxEvent, 'createdAt'>[],
  origin = '',
): Promise<void> {
  // Sequential on purpose: a transaction's session must not run operations in parallel.
  for (const event of events) {
    assertDocId(event.id);
    if (typeof event.subject !== 'string' || event.subject.length === 0) {
      throw new ValidationError('event subject must be a non-empty string', { field: 'subject' });
    }
    // $setOnInsert: enqueueing an id that is already there changes nothing.
    await outbox(db).updateOne(
      { _id: event.id },
      {
        $setOnInsert: {
          seq: new ObjectId(),
          subject: event.subject,
          payload: event.payload ?? null,
          headers: event.headers ?? {},
          createdAt: new Date(),
          publishedAt: null,
          origin,
        },
      },
      { upsert: true, session },
    );
  }
}

/**
 * Watches inserts into the outbox with a change stream (replica sets only, as transactions are);
 * committed transactions' inserts only, since change streams report majority-committed writes.
 */
export async function watchOutbox(
  db: Db,
  onWrite: (origin: string) => void,
  logger?: StoreLogger,
): Promise<() => Promise<void>> {
  let stopped = false;
  let stream: ChangeStream<OutboxDoc> | undefined;
  const open = (): void => {
    const s = outbox(db).watch<OutboxDoc>([{ $match: { operationType: 'insert' } }]);
    s.on('change', (change) => {
      if (change.operationType === 'insert') onWrite(change.fullDocument.origin ?? '');
    });
    s.on('error', (err) => {
      logger?.warn({ err }, 'outbox change stream failed; re-opening');
      void s.close().catch(() => undefined);
      if (!stopped) setTimeout(open, 1_000).unref();
    });
    stream = s;
  };
  open();
  return async () => {
    stopped = true;
    await stream?.close().catch(() => undefined);
  };
}

export async function pending(db: Db, limit: number): Promise<OutboxEvent[]> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new ValidationError('limit must be an integer >= 1');
  const docs = await outbox(db).find({ publishedAt: null }).sort({ createdAt: 1, seq: 1 }).limit(limit).toArray();
  return docs.map((d) => ({
    id: d._id,
    subject: d.subject,
    payload: d.payload,
    headers: d.headers,
    createdAt: d.createdAt.toISOString(),
  }));
}

export async function markPublished(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await outbox(db).updateMany({ _id: { $in: ids }, publishedAt: null }, { $set: { publishedAt: new Date() } });
}

export async function nextSequence(db: Db, key: string, startAt = 1, session?: ClientSession): Promise<number> {
  if (typeof key !== 'string' || key.length === 0) throw new ValidationError('sequence key must be a non-empty string');
  if (!Number.isSafeInteger(startAt)) throw new ValidationError('startAt must be an integer');
  const bump = [{ $set: { value: { $add: [{ $ifNull: ['$value', startAt - 1] }, 1] } } }];
  for (let attempt = 0; ; attempt++) {
    try {
      const doc = await sequences(db).findOneAndUpdate({ _id: key }, bump, {
        upsert: true,
        returnDocument: 'after',
        session,
      });
      if (!doc) throw new Error(`sequence ${key} was not returned by the upsert`);
      return doc.value;
    } catch (err) {
      // Two first-time upserts of one key can race to insert; the loser retries as an update.
      if (!isDuplicateKey(err) || attempt >= 2 || session) throw err;
    }
  }
}
