import { EventEmitter } from 'node:events';
import { Client, credentials, Metadata, status, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { UnaryMethod } from './client';
import type { JsonAnswer, JsonEnvelope } from './json';
import { jsonCallerPerClients } from './json-callers';

/** The call handle a fake method gives back (the caller only waits for the callback). */
class AnsweredCall extends EventEmitter implements ClientUnaryCall {
  cancel(): void {}
  getPeer(): string {
    return 'fake';
  }
  getAuthContext(): null {
    return null;
  }
}

const map = { countThings: { request: z.object({}), answer: z.object({ count: z.number() }) } };

/** A client whose countThings answers `count` (or fails as unreachable), noting each call's deadline. */
function fakeClient(count: number | 'unreachable') {
  const deadlines: number[] = [];
  const countThings: UnaryMethod<JsonEnvelope, JsonAnswer> = (_req, _md, options, callback) => {
    deadlines.push(options.deadline instanceof Date ? options.deadline.getTime() : Number(options.deadline));
    if (count === 'unreachable') {
      const err: ServiceError = Object.assign(new Error('14 UNAVAILABLE: connect refused'), {
        code: status.UNAVAILABLE,
        details: 'connect refused',
        metadata: new Metadata(),
      });
      callback(err, { json: '' });
    } else {
      callback(null, { json: JSON.stringify({ count }) });
    }
    return new AnsweredCall();
  };
  const client = Object.assign(new Client('127.0.0.1:1', credentials.createInsecure()), { countThings });
  return { client, deadlines };
}

describe('jsonCallerPerClients', () => {
  const a = fakeClient(3);
  const b = fakeClient(7);
  const down = fakeClient('unreachable');
  afterAll(() => [a, b, down].forEach((f) => f.client.close()));
  const thingsJson = jsonCallerPerClients(
    'things',
    (c: { things: typeof a.client; deadlineMs: number }) => c.things,
    map,
  );
  const tenant = { organizationId: 'o1', testMode: false };

  it('makes one caller per set of clients and reuses it', () => {
    const clients = { things: a.client, deadlineMs: 1_000 };
    expect(thingsJson(clients)).toBe(thingsJson(clients));
    expect(thingsJson({ things: a.client, deadlineMs: 1_000 })).not.toBe(thingsJson(clients));
  });

  it('calls each set’s own client with its deadline, the answer checked by the map', async () => {
    const before = Date.now();
    expect(await thingsJson({ things: a.client, deadlineMs: 1_000 }).json('countThings', tenant, {})).toEqual({
      count: 3,
    });
    expect(await thingsJson({ things: b.client, deadlineMs: 60_000 }).json('countThings', tenant, {})).toEqual({
      count: 7,
    });
    const [da] = a.deadlines.slice(-1);
    const [db] = b.deadlines.slice(-1);
    expect(da).toBeGreaterThanOrEqual(before + 1_000);
    expect(da).toBeLessThan(before + 30_000);
    expect(db).toBeGreaterThanOrEqual(before + 60_000);
  });

  it('names the service in transport failures', async () => {
    await expect(
      thingsJson({ things: down.client, deadlineMs: 1_000 }).json('countThings', tenant, {}),
    ).rejects.toThrow('things unavailable');
  });
});
