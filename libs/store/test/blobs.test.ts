import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type DroppableStore } from '../src';

const PG_URL = process.env.STORE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

describe('PostgreSQL blob store', () => {
  let store: DroppableStore;
  beforeAll(async () => {
    store = await createStore({ url: PG_URL, database: `store_blobs_${randomBytes(5).toString('hex')}` });
  });
  afterAll(async () => {
    await store.dropDatabase();
    await store.close();
  });

  it('keeps binary bytes exactly, replaces by key and deletes', async () => {
    const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(200_000), Buffer.from([0, 255, 0])]);
    await store.blobs.put('org/live/invoice/1/v1', { bytes, contentType: 'application/pdf' });
    const back = await store.blobs.get('org/live/invoice/1/v1');
    expect(back?.contentType).toBe('application/pdf');
    expect(back?.bytes.equals(bytes)).toBe(true);

    await store.blobs.put('org/live/invoice/1/v1', { bytes: Buffer.from('second'), contentType: 'text/plain' });
    expect((await store.blobs.get('org/live/invoice/1/v1'))?.bytes.toString()).toBe('second');

    expect(await store.blobs.get('org/live/invoice/2/v1')).toBeNull();
    expect(await store.blobs.delete('org/live/invoice/1/v1')).toBe(true);
    expect(await store.blobs.delete('org/live/invoice/1/v1')).toBe(false);
    expect(await store.blobs.get('org/live/invoice/1/v1')).toBeNull();
  });

  it('refuses an empty key', async () => {
    await expect(store.blobs.put('', { bytes: Buffer.from('x'), contentType: 'text/plain' })).rejects.toThrow(/blob key/);
  });
});
