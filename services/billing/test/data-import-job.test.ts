import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, DEV_SECRETS_KEYRING, newObjectId, SecretBox, type Clock } from '@paymesh/core';
import { Committer } from '@paymesh/bus';
import { createStore, type DroppableStore, type StoredDoc } from '@paymesh/store';
import type { EventMap } from '@paymesh/contracts';
import type { DataIoDeps } from '../src/app/data-io-port';
import type { OrgKey } from '../src/app/deps';
import { importData } from '../src/app/data-import';
import { getDataImport, startDataImport, STALE_IMPORT_MS } from '../src/app/data-import-job';
import { CLIENTS, collections, DATA_IMPORTS } from '../src/store/collections';
import { testDatabase, waitFor } from '../../../test/support/kit';
import { PG_URL } from './tax-fixture';

function clientsFile(rows: number): { file: Buffer; digest: string } {
  const lines = ['name,email'];
  for (let i = 1; i <= rows; i++) lines.push(`Client ${i},client${i}@import.example`);
  const file = Buffer.from(`${lines.join('\n')}\n`);
  return { file, digest: createHash('sha256').update(file).digest('hex') };
}

async function* chunksOf(file: Buffer): AsyncGenerator<Uint8Array> {
  yield file;
}

/**
 * Import jobs against PostgreSQL: a job runs to completed with its progress in rows; the same file
 * again answers the same job and writes nothing; a job whose process stopped half-way is resumed
 * when it is read, writing only the rows that were missing.
 */
describe('data import jobs', () => {
  let store: DroppableStore;
  let deps: DataIoDeps;
  const now = new Date('2026-11-28T10:00:00Z');
  const clock = { now: () => now } as Clock;
  const key: OrgKey = { organizationId: newObjectId(), mode: 'live' };
  const clientCount = () => store.collection(CLIENTS).count({ organizationId: key.organizationId, mode: key.mode });
  const settled = (id: string) =>
    waitFor(
      async () => {
        const job = await getDataImport(deps, key, id);
        return job.status !== 'running' ? job : undefined;
      },
      { what: `import job ${id} to end`, timeoutMs: 30_000 },
    );

  beforeAll(async () => {
    store = await createStore({ url: PG_URL, database: testDatabase('billing_import_jobs_test') });
    for (const c of collections) await store.ensureCollection(c);
    const none = async () => Promise.reject(new Error('not in this suite'));
    deps = {
      store,
      secrets: new SecretBox(DEV_SECRETS_KEYRING),
      clock,
      logger: createLogger({ service: 'billing-test', level: 'silent' }),
      outbox: new Committer<EventMap>({ store }),
      tax: { settings: async () => ({ homeCountry: 'DE', vatId: null, viesEnabled: false }), calculate: none },
      checkout: {
        siteExists: async () => true,
        siteBranding: none,
        createCheckout: none,
        transaction: async () => null,
        transactionTax: none,
      },
      emailOutbox: { send: none },
      documents: { renderPdf: none, renderEInvoice: none },
      dataIo: {
        taxRates: async () => [],
        createTaxRate: none,
        transactions: async () => [],
        transactionProviders: async () => new Map(),
        taxRecords: async () => [],
      },
    };
  });
  afterAll(async () => {
    await store?.dropDatabase();
  });

  /** Starts importing a clients file of `rows` rows, as `actor`. */
  const startClients = (file: Buffer, digest: string, rows: number, actor: string | null) =>
    startDataImport(deps, key, { entityType: 'clients', digest, rows }, actor, chunksOf(file));

  it('runs to completed with its progress in rows; the same file again answers the same job and writes nothing', async () => {
    const { file, digest } = clientsFile(1200);
    const started = await startClients(file, digest, 1200, 'user:test');
    expect(started).toMatchObject({ status: 'running', progress: { total: 1200 } });
    const done = await settled(started.id);
    expect(done).toMatchObject({ status: 'completed', progress: { done: 1200, total: 1200 }, error: null });
    expect(done.report).toMatchObject({ created: 1200, alreadyImported: 0, invalidRows: 0 });
    expect(await clientCount()).toBe(1200);

    const again = await startClients(file, digest, 1200, 'user:test');
    expect(again).toEqual(done);
    expect(await clientCount()).toBe(1200);
    // Its file is not kept once the job completed (deleted right after the job is recorded completed).
    await waitFor(async () => (await store.blobs.get(`data-imports/${done.id}`)) === null, {
      what: `the file of import job ${done.id} to be deleted`,
      timeoutMs: 10_000,
    });
  });

  it('a job whose process stopped half-way is resumed when read, writing only the missing rows', async () => {
    const before = await clientCount();
    const { file, digest } = clientsFile(900);
    // The stopped run wrote the first 500 rows (keyed by the whole file's digest) and recorded it.
    const firstRows = Buffer.from(file.toString().split('\n').slice(0, 501).join('\n') + '\n');
    await importData(deps, key, { entityType: 'clients', dryRun: false, digest }, 'user:test', chunksOf(firstRows));
    const at = new Date(now.getTime() - STALE_IMPORT_MS - 1000).toISOString();
    const stopped = await store.collection<StoredDoc & Record<string, unknown>>(DATA_IMPORTS).insert({
      organizationId: key.organizationId,
      mode: key.mode,
      entityType: 'clients',
      digest,
      actor: 'user:test',
      status: 'running',
      progress: { done: 500, total: 900 },
      report: null,
      error: null,
      createdAt: at,
      updatedAt: at,
      completedAt: null,
    });
    await store.blobs.put(`data-imports/${stopped.id}`, { bytes: file, contentType: 'text/csv' });
    expect(await clientCount()).toBe(before + 500);

    const resumed = await getDataImport(deps, key, stopped.id);
    expect(resumed.status).toBe('running');
    expect(Date.parse(resumed.updatedAt)).toBe(now.getTime());
    const done = await settled(stopped.id);
    expect(done).toMatchObject({ status: 'completed', progress: { done: 900, total: 900 } });
    expect(done.report).toMatchObject({ created: 400, alreadyImported: 500 });
    expect(await clientCount()).toBe(before + 900);
  });

  it("another organization's job is not found", async () => {
    const { file, digest } = clientsFile(2);
    const job = await startClients(file, digest, 2, null);
    await settled(job.id);
    await expect(getDataImport(deps, { organizationId: newObjectId(), mode: 'live' }, job.id)).rejects.toThrow(
      /not found/,
    );
  });
});
