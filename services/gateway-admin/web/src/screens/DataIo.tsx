import { useState, type DragEvent } from 'react';
import { api, must, type paths } from '../api';
import { useFileDownload } from '../download';
import { count } from '../format';
import { SelectField } from '../forms';
import { useI18n } from '../i18n';
import { usePolledJob } from '../job';
import { JobProgressBox } from '../progress';
import { can } from '../session';
import { DataTable } from '../table';
import { ErrorNote, Section, useMember } from '../ui';

type Entity = 'clients' | 'invoices' | 'tax_rates';
type ExportEntity = 'clients' | 'invoices' | 'credit_notes' | 'transactions';
type Report =
  paths['/api/v1/data-import-export/import/validate']['post']['responses'][200]['content']['application/json'];

const ENTITIES: Entity[] = ['clients', 'invoices', 'tax_rates'];
const EXPORTS: ExportEntity[] = ['clients', 'invoices', 'credit_notes', 'transactions'];

/** The report of a refused import (422 DATA_IMPORT_INVALID carries it beside the message). */
function reportOf(error: unknown): Report | null {
  if (typeof error === 'object' && error !== null && 'report' in error) return (error as { report: Report }).report;
  return null;
}

const csvBody = { bodySerializer: (b: string) => b, headers: { 'content-type': 'text/csv' } };

/** The rows of a check: every invalid row with its column and message. */
function CheckReport({ report }: { report: Report }) {
  const { t } = useI18n();
  const ok = report.invalidRows === 0;
  return (
    <div data-testid="import-report" data-invalid={report.invalidRows}>
      <p role="status" className={`notice ${ok ? '' : 'error'}`}>
        {ok
          ? t('dataIo.checkOk', { rows: report.rows })
          : t('dataIo.checkFailed', { invalid: report.invalidRows, rows: report.rows })}
      </p>
      {!ok && (
        <DataTable
          testId="import-errors"
          caption={t('dataIo.errors')}
          rows={report.errors}
          rowKey={(e) => `${e.row}-${e.field ?? ''}-${e.error}`}
          empty="—"
          columns={[
            { header: t('dataIo.row'), num: true, cell: (e) => String(e.row) },
            { header: t('dataIo.field'), cell: (e) => e.field ?? '—' },
            { header: t('dataIo.message'), cell: (e) => e.error },
          ]}
        />
      )}
      {report.errorsTruncated && <p className="muted">{t('dataIo.truncated')}</p>}
    </div>
  );
}

/** An import job's bar: rows written of the file's rows, read until the job ends. */
function ImportProgress({ id }: { id: string }) {
  const { t, locale } = useI18n();
  // Once it ended, lists of what was imported show the new records (all the organization's reads).
  const { job, record } = usePolledJob({
    key: ['data-import', id],
    read: async () => must(await api.GET('/api/v1/data-import-export/import-jobs/{id}', { params: { path: { id } } })),
    active: (status) => status === 'running',
  });
  if (job.isError) return <ErrorNote error={job.error} />;
  if (!record) return null;
  const { done, total } = record.progress;
  const pct = total > 0 ? Math.round((100 * done) / total) : 100;
  return (
    <JobProgressBox
      testId="import-progress"
      status={record.status}
      data-percent={pct}
      statusText={t(`dataIo.status.${record.status}`)}
      detail={t('dataIo.progress', { done: count(done, locale), total, percent: pct })}
      max={Math.max(total, 1)}
      value={done}
    >
      {record.status === 'completed' && record.report && (
        <p role="status" className="notice">
          {t('dataIo.completed', {
            created: record.report.created,
            already: record.report.alreadyImported,
          })}
        </p>
      )}
      {record.status === 'failed' && (
        <p role="alert" className="notice error">
          {t('dataIo.failed', { message: record.error ?? '' })}
        </p>
      )}
    </JobProgressBox>
  );
}

/** Upload a CSV file (drop or pick), see its check before anything is written, then import it as a job. */
function Import() {
  const { t } = useI18n();
  const [entity, setEntity] = useState<Entity>('clients');
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [jobId, setJobId] = useState<string | null>(null);
  const [over, setOver] = useState(false);

  const check = async (picked: File) => {
    const text = await picked.text();
    setFile({ name: picked.name, text });
    setReport(null);
    setJobId(null);
    setError(null);
    setBusy(true);
    try {
      setReport(
        must(
          await api.POST('/api/v1/data-import-export/import/validate', {
            params: { query: { entityType: entity } },
            body: text,
            ...csvBody,
          }),
        ),
      );
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const start = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const res = await api.POST('/api/v1/data-import-export/import-jobs', {
        params: { query: { entityType: entity } },
        body: file.text,
        ...csvBody,
      });
      const refused = res.response.status === 422 ? reportOf(res.error) : null;
      if (refused) setReport(refused);
      else setJobId(must(res).id);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const dropped = e.dataTransfer.files[0];
    if (dropped) void check(dropped);
  };
  return (
    <Section title={t('dataIo.import')} id="import">
      <p className="muted">{t('dataIo.importIntro')}</p>
      <div className="grid-form">
        <SelectField<Entity>
          id="import-entity"
          label={t('dataIo.entity')}
          value={entity}
          options={ENTITIES.map((e) => [e, t(`dataIo.entity.${e}`)])}
          onChange={(e) => {
            setEntity(e);
            setFile(null);
            setReport(null);
            setJobId(null);
          }}
        />
      </div>
      <div
        className={`drop-zone${over ? ' over' : ''}`}
        data-testid="drop-zone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>{t('dataIo.drop')}</p>
        <label htmlFor="import-file">{t('dataIo.pick')}</label>{' '}
        <input
          id="import-file"
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => {
            const picked = e.target.files?.[0];
            e.target.value = '';
            if (picked) void check(picked);
          }}
        />
      </div>
      {file && <p className="muted">{t('dataIo.file', { name: file.name })}</p>}
      {busy && !jobId && <p role="status">{t('dataIo.checking')}</p>}
      {error ? <ErrorNote error={error} /> : null}
      {report && <CheckReport report={report} />}
      {report && report.invalidRows === 0 && !jobId && (
        <div className="actions">
          <button type="button" data-testid="import-start" disabled={busy} onClick={() => void start()}>
            {t('dataIo.start', { rows: report.rows })}
          </button>
        </div>
      )}
      {jobId && <ImportProgress key={jobId} id={jobId} />}
    </Section>
  );
}

function Templates() {
  const { t } = useI18n();
  const download = useFileDownload();
  return (
    <Section title={t('dataIo.templates')} id="templates">
      <p className="muted">{t('dataIo.templatesIntro')}</p>
      <ul className="inline-list">
        {ENTITIES.map((e) => (
          <li key={e}>
            <button
              type="button"
              className="secondary"
              data-testid={`template-${e}`}
              disabled={download.busy}
              onClick={() =>
                void download.run(`/api/v1/data-import-export/template/${e}`, { fallbackName: `${e}-template.csv` })
              }
            >
              {t('dataIo.template', { entity: t(`dataIo.entity.${e}`) })}
            </button>
          </li>
        ))}
      </ul>
      {download.error ? <ErrorNote error={download.error} /> : null}
    </Section>
  );
}

function Exports() {
  const { t } = useI18n();
  const [entity, setEntity] = useState<ExportEntity>('clients');
  const download = useFileDownload();
  return (
    <Section title={t('dataIo.exports')} id="exports">
      <p className="muted">{t('dataIo.exportsIntro')}</p>
      <form
        className="grid-form"
        aria-label={t('dataIo.exports')}
        onSubmit={(e) => {
          e.preventDefault();
          void download.run('/api/v1/data-import-export/export', {
            method: 'POST',
            body: { entityType: entity },
            fallbackName: `${entity}.csv`,
          });
        }}
      >
        <SelectField<ExportEntity>
          id="export-entity"
          label={t('dataIo.entity')}
          value={entity}
          options={EXPORTS.map((e) => [e, t(`dataIo.export.${e}`)])}
          onChange={setEntity}
        />
        <div className="actions">
          <button type="submit" data-testid="export-start" disabled={download.busy}>
            {t('dataIo.download')}
          </button>
        </div>
      </form>
      {download.error ? <ErrorNote error={download.error} /> : null}
    </Section>
  );
}

/** Data import/export: templates, a checked CSV import with its progress, and CSV exports (Editors). */
export function DataIo() {
  const { t } = useI18n();
  const { role } = useMember();
  const write = can(role, 'write');
  return (
    <>
      <h1>{t('dataIo.title')}</h1>
      <p className="muted">{t('dataIo.intro')}</p>
      <Templates />
      {write ? <Import /> : <p className="muted">{t('dataIo.readOnly')}</p>}
      {write && <Exports />}
    </>
  );
}
