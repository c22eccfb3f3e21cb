import { ConflictError, isDomainError, NotFoundError, ofTenant } from '@paymesh/core';
import type { DataImportJob, DataImportJobHeader, DataImportReport } from '@paymesh/contracts';
import type { StoredDoc } from '@paymesh/store';
import { DATA_IMPORTS } from '../store/collections';
import type { DataIoDeps } from './data-io-port';
import { importData } from './data-import';
import type { OrgKey } from './deps';

/**
 * A running job whose record has not moved for this long is taken to have lost its process (a batch
 * of 500 rows is written and recorded in seconds): the next start of the same file, or the next
 * read of the job, resumes it.
 */
export const STALE_IMPORT_MS = 2 * 60_000;

interface DataImportDoc extends StoredDoc, Omit<DataImportJob, 'id'> {
  organizationId: string;
  mode: 'live' | 'test';
  actor: string | null;
  /**
   * true from the moment the job's file is stored until it is deleted after the job ended; a job
   * that ended with it still true lost its process in between (see `deleteLeftImportFiles`).
   * Absent on jobs recorded before the field existed (their files were deleted).
   */
  fileKept?: boolean;
}

type Fields = Omit<DataImportDoc, 'id' | 'version'>;

/**
 * The file of a job, kept while it runs (a stale job read again resumes from it) and deleted when it
 * ended: a failed job is resumed only by starting the same file again, which stores it again.
 */
const fileKey = (id: string) => `data-imports/${id}`;

function jobOf(d: DataImportDoc): DataImportJob {
  return {
    id: d.id,
    entityType: d.entityType,
    digest: d.digest,
    status: d.status,
    progress: d.progress,
    report: d.report,
    error: d.error,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    completedAt: d.completedAt,
  };
}

const isStale = (deps: DataIoDeps, d: DataImportDoc) =>
  d.status === 'running' && Date.parse(d.updatedAt) < deps.clock.now().getTime() - STALE_IMPORT_MS;

/**
 * Starts importing a file a check found valid, as a job that runs on in this process after the
 * answer. One job per organization, mode, entity type and file digest: starting the same file again
 * answers its job (running or completed) and resumes one that failed or went stale. A resumed run
 * writes only what is missing, as every record created carries the file digest and its row as its
 * idempotency key.
 */
export async function startDataImport(
  deps: DataIoDeps,
  key: OrgKey,
  header: DataImportJobHeader,
  actor: string | null,
  chunks: AsyncIterable<Uint8Array>,
): Promise<DataImportJob> {
  const parts: Buffer[] = [];
  for await (const c of chunks) if (c.length > 0) parts.push(Buffer.from(c));
  const file = Buffer.concat(parts);
  const jobs = deps.store.collection<DataImportDoc>(DATA_IMPORTS);
  const filter = {
    organizationId: key.organizationId,
    mode: key.mode,
    entityType: header.entityType,
    digest: header.digest,
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await jobs.findOne(filter);
    if (existing) {
      if (existing.status === 'completed' || (existing.status === 'running' && !isStale(deps, existing)))
        return jobOf(existing);
      const claimed = await claim(deps, existing);
      if (!claimed) continue;
      await deps.store.blobs.put(fileKey(claimed.id), { bytes: file, contentType: 'text/csv' });
      return launch(deps, key, claimed, file);
    }
    const now = deps.clock.now().toISOString();
    try {
      const created = await jobs.insert({
        ...filter,
        actor,
        status: 'running',
        progress: { done: 0, total: header.rows },
        report: null,
        error: null,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
        fileKept: true,
      });
      await deps.store.blobs.put(fileKey(created.id), { bytes: file, contentType: 'text/csv' });
      return launch(deps, key, created, file);
    } catch (err) {
      // Another request started the same file meanwhile: answer its job.
      if (!(err instanceof ConflictError)) throw err;
    }
  }
  throw new ConflictError('the import of this file is being started by another request; retry');
}

/** Takes a failed or stale job over (compare-and-set on its version); null when another did. */
async function claim(deps: DataIoDeps, d: DataImportDoc): Promise<DataImportDoc | null> {
  try {
    return await deps.store.collection<DataImportDoc>(DATA_IMPORTS).replace({
      ...d,
      status: 'running',
      error: null,
      fileKept: true,
      updatedAt: deps.clock.now().toISOString(),
    });
  } catch (err) {
    if (err instanceof ConflictError) return null;
    throw err;
  }
}

/** Runs the import in the background and answers the running record. */
function launch(deps: DataIoDeps, key: OrgKey, d: DataImportDoc, file: Buffer): DataImportJob {
  void run(deps, key, d, file).catch((err: unknown) =>
    deps.logger.error({ err, importId: d.id }, 'data import job could not record its outcome'),
  );
  return jobOf(d);
}

async function* bytesOf(file: Buffer): AsyncGenerator<Uint8Array> {
  yield file;
}

async function run(deps: DataIoDeps, key: OrgKey, started: DataImportDoc, file: Buffer): Promise<void> {
  const jobs = deps.store.collection<DataImportDoc>(DATA_IMPORTS);
  // The job's only writer while it runs (it claimed the record): the held version is current.
  let held = started;
  const record = async (next: Partial<Fields>) => {
    held = await jobs.replace({
      ...held,
      ...next,
      updatedAt: deps.clock.now().toISOString(),
    });
  };
  let report: DataImportReport;
  try {
    report = await importData(
      deps,
      key,
      { entityType: held.entityType, dryRun: false, digest: held.digest },
      held.actor ?? undefined,
      bytesOf(file),
      async (rowsWritten) => {
        const total = held.progress.total;
        await record({ progress: { done: Math.min(rowsWritten, total), total } });
      },
    );
  } catch (err) {
    deps.logger.warn({ err, importId: held.id }, 'data import job failed');
    const message = isDomainError(err) ? err.message : 'the import stopped on an internal error; start it again';
    // Only while the run still holds the record: a run that lost it (taken over as stale) leaves it,
    // and its file, to the run that took it over.
    const recorded = await record({ status: 'failed', error: message }).then(
      () => true,
      (lost: unknown) => {
        if (!(lost instanceof ConflictError)) throw lost;
        return false;
      },
    );
    if (recorded) await deleteFile(deps, held);
    return;
  }
  const total = Math.max(report.rows, held.progress.total);
  const failed = report.invalidRows > 0;
  const now = deps.clock.now().toISOString();
  await record({
    status: failed ? 'failed' : 'completed',
    progress: { done: failed ? held.progress.done : total, total },
    report,
    error: failed
      ? `${report.invalidRows} row(s) became invalid while importing (first: row ${report.errors[0]?.row ?? '?'}: ${report.errors[0]?.error ?? ''})`
      : null,
    completedAt: failed ? null : now,
  });
  await deleteFile(deps, held);
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, importId: held.id, created: report.created },
    'data import job finished',
  );
}

/**
 * Deletes the file of a job that ended, then records that it is gone; answers whether a file was
 * there. Both steps are idempotent: a process that dies between them leaves `fileKept` true, and
 * `deleteLeftImportFiles` finishes the work.
 */
async function deleteFile(deps: Pick<DataIoDeps, 'store'>, d: DataImportDoc): Promise<boolean> {
  const deleted = await deps.store.blobs.delete(fileKey(d.id));
  try {
    await deps.store.collection<DataImportDoc>(DATA_IMPORTS).replace({ ...d, fileKept: false });
  } catch (err) {
    // Changed meanwhile (taken over, or another sweep): whoever changed it owns the flag now.
    if (!(err instanceof ConflictError)) throw err;
  }
  return deleted;
}

/**
 * Deletes the files that import jobs which ended still keep: left by a process that stopped between
 * recording the job's end and deleting its file. Run at every start of the service (each replica;
 * idempotent). Answers how many files it deleted.
 */
export async function deleteLeftImportFiles(deps: Pick<DataIoDeps, 'store'>): Promise<number> {
  const jobs = deps.store.collection<DataImportDoc>(DATA_IMPORTS);
  let deleted = 0;
  let after = '';
  for (;;) {
    const { items } = await jobs.find(
      { fileKept: true, status: { $in: ['completed', 'failed'] }, id: { $gt: after } },
      { sort: { id: 1 }, limit: 100 },
    );
    for (const d of items) {
      after = d.id;
      if (await deleteFile(deps, d)) deleted++;
    }
    if (items.length < 100) return deleted;
  }
}

/**
 * One import job of the organization (404 for another's). A job gone stale (its process stopped)
 * is resumed here from its kept file, so a page that follows it sees it finish.
 */
export async function getDataImport(deps: DataIoDeps, key: OrgKey, id: string): Promise<DataImportJob> {
  const d = await deps.store.collection<DataImportDoc>(DATA_IMPORTS).get(id);
  if (!ofTenant(d, key)) throw new NotFoundError('data import not found');
  if (isStale(deps, d)) {
    const file = await deps.store.blobs.get(fileKey(d.id));
    const claimed = file ? await claim(deps, d) : null;
    if (file && claimed) return launch(deps, key, claimed, file.bytes);
  }
  return jobOf(d);
}
