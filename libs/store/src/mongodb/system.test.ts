import { EventEmitter } from 'node:events';
import type { Db } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { watchOutbox } from './system';

/** A change stream stand-in: the adapter only listens for 'change' and 'error' and closes it. */
class FakeStream extends EventEmitter {
  closed = false;
  async close(): Promise<void> {
    this.closed = true;
  }
}

function fakeDb() {
  const streams: FakeStream[] = [];
  const pipelines: unknown[] = [];
  const db = {
    collection: (name: string) => {
      expect(name).toBe('_outbox');
      return {
        watch: (pipeline: unknown) => {
          pipelines.push(pipeline);
          const s = new FakeStream();
          streams.push(s);
          return s;
        },
      };
    },
  };
  // A fake of the one driver method the watcher calls.
  const typed: Db = db as any;
  return { db: typed, streams, pipelines };
}

describe('MongoDB outbox watch', () => {
  it('reports the origin of every inserted outbox event and stops on request', async () => {
    const { db, streams, pipelines } = fakeDb();
    const origins: string[] = [];
    const stop = await watchOutbox(db, (origin) => origins.push(origin));
    expect(pipelines).toEqual([[{ $match: { operationType: 'insert' } }]]);
    streams[0]!.emit('change', { operationType: 'insert', fullDocument: { origin: 'relay-a' } });
    streams[0]!.emit('change', { operationType: 'insert', fullDocument: {} });
    streams[0]!.emit('change', { operationType: 'update' });
    expect(origins).toEqual(['relay-a', '']);
    await stop();
    expect(streams[0]!.closed).toBe(true);
  });
});
