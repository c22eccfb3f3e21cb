import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, DEV_SECRETS_KEYRING, newObjectId, SecretBox, type Clock } from '@paymesh/core';
import { Committer } from '@paymesh/bus';
import { createStore, type DroppableStore, type StoredDoc } from '@paymesh/store';
import type { EventMap } from '@paymesh/contracts';
import type { DataIoDeps } from '../src/app/data-io-port';
import type { OrgKey } from '../src/app/deps';
import { importData } from '../src/app/data-import';
import { deleteLeftImportFiles, getDataImport, startDataImport, STALE_IMPORT_MS } from '../src/app/data-import-job';
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

  it('a job that failed deletes its file; starting the same file again resumes it', async () => {
    const file = Buffer.from('code,country,rateType,percent,validFrom\nVAT_XX,DE,standard,19,2020-01-01\n');
    const digest = createHash('sha256').update(file).digest('hex');
    const header = { entityType: 'tax_rates' as const, digest, rows: 1 };
    // The tax service refuses the write (this suite's port rejects it): the job fails.
    const job = await startDataImport(deps, key, header, null, chunksOf(file));
    const failed = await settled(job.id);
    expect(failed).toMatchObject({
      status: 'failed',
      error: 'the import stopped on an internal error; start it again',
    });
    await waitFor(async () => (await store.blobs.get(`data-imports/${job.id}`)) === null, {
      what: `the file of failed import job ${job.id} to be deleted`,
      timeoutMs: 10_000,
    });
    const again = await startDataImport(deps, key, header, null, chunksOf(file));
    expect(again).toMatchObject({ id: job.id, status: 'running' });
    expect(await settled(job.id)).toMatchObject({ status: 'failed' });
  });

  it('files left by a process that stopped after its job ended are deleted at the next start, once', async () => {
    const jobs = store.collection<StoredDoc & Record<string, unknown>>(DATA_IMPORTS);
    const at = now.toISOString();
    const job = (status: string, n: number) => ({
      organizationId: key.organizationId,
      mode: key.mode,
      entityType: 'clients',
      digest: `left-${n}`,
      actor: null,
      status,
      progress: { done: 1, total: 1 },
      report: null,
      error: null,
      createdAt: at,
      updatedAt: at,
      completedAt: status === 'completed' ? at : null,
      fileKept: true,
    });
    const completed = await jobs.insert(job('completed', 1));
    const failed = await jobs.insert(job('failed', 2));
    const running = await jobs.insert(job('running', 3));
    for (const d of [completed, failed, running])
      await store.blobs.put(`data-imports/${d.id}`, { bytes: Buffer.from('name\nx\n'), contentType: 'text/csv' });

    expect(await deleteLeftImportFiles(deps)).toBe(2);
    expect(await store.blobs.get(`data-imports/${completed.id}`)).toBeNull();
    expect(await store.blobs.get(`data-imports/${failed.id}`)).toBeNull();
    // A running job's file stays: a read of the job resumes from it once it goes stale.
    expect(await store.blobs.get(`data-imports/${running.id}`)).not.toBeNull();
    expect(await jobs.get(completed.id)).toMatchObject({ status: 'completed', fileKept: false });
    expect(await deleteLeftImportFiles(deps)).toBe(0);
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
