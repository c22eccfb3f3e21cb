import { useState } from 'react';
import { api, must, type paths } from '../api';
import { useFileDownload } from '../download';
import { count, dateTime } from '../format';
import { Check, SecondaryButton, TextField, YearField } from '../forms';
import { useI18n } from '../i18n';
import { usePolledJob } from '../job';
import { IntegrityCheck } from '../integrity';
import { JobProgressBox, ProgressBox } from '../progress';
import { can } from '../session';
import { ListTable } from '../table';
import { ErrorNote, Section, useMember, useOrgMutation, useOrgQuery, useOrgTimeZone } from '../ui';

type DatevExport =
  paths['/api/v1/accounting/datev/exports']['get']['responses'][200]['content']['application/json']['items'][number];
type Selection = 'range' | 'not_exported';

/** The progress of one export: a bar from its record (documents read of those to read), polled until it ends. */
function ExportProgress({ id }: { id: string }) {
  const { t, locale } = useI18n();
  const { job, record } = usePolledJob({
    key: ['datev-export', id],
    read: async () => must(await api.GET('/api/v1/accounting/datev/exports/{id}', { params: { path: { id } } })),
    active: (status) => status === 'running',
    // The list shows the export's outcome (and its download) once it ended.
    refresh: 'datev-exports',
  });
  if (job.isError) return <ErrorNote error={job.error} />;
  if (!record) return null;
  const { done, total } = record.progress;
  return (
    <JobProgressBox
      testId="datev-progress"
      status={record.status}
      statusText={t(`accounting.status.${record.status}`)}
      detail={t('accounting.progress', { done: count(done, locale), total })}
      max={Math.max(total, 1)}
      value={record.status === 'running' ? done : total}
    >
      {record.status === 'completed' && (
        <p role="status" className="notice">
          {t('accounting.completed', { postings: record.postings })}
        </p>
      )}
      {record.status === 'failed' && (
        <p role="alert" className="notice error">
          {t('accounting.failed')}
        </p>
      )}
    </JobProgressBox>
  );
}

/** Start a DATEV export: a date range, or everything not yet exported (up to today). */
function StartDatev({ onStarted }: { onStarted: (id: string) => void }) {
  const { t } = useI18n();
  const [selection, setSelection] = useState<Selection>('range');
  const [range, setRange] = useState({ from: '', to: '' });
  const start = useOrgMutation(
    async () =>
      must(
        await api.POST('/api/v1/accounting/datev/export-jobs', {
          body:
            selection === 'not_exported'
              ? { select: 'not_exported' }
              : { select: 'all', ...(range.from ? { from: range.from } : {}), ...(range.to ? { to: range.to } : {}) },
        }),
      ),
    ['datev-exports'],
    (record) => onStarted(record.id),
  );
  return (
    <form
      className="grid-form"
      aria-label={t('accounting.datevStart')}
      id="datev-form"
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate(undefined);
      }}
    >
      <fieldset className="wide">
        <legend>{t('accounting.select')}</legend>
        {(
          [
            ['range', 'datev-select-range', t('accounting.selectRange')],
            ['not_exported', 'datev-select-new', t('accounting.selectNew')],
          ] as const
        ).map(([value, id, label]) => (
          <Check
            key={value}
            id={id}
            label={label}
            radio={{ name: 'datev-select' }}
            checked={selection === value}
            onChange={() => setSelection(value)}
          />
        ))}
      </fieldset>
      {selection === 'range' &&
        (['from', 'to'] as const).map((k) => (
          <TextField
            key={k}
            id={`datev-${k}`}
            type="date"
            label={t(`accounting.${k}`)}
            hint={t(`accounting.${k}Hint`)}
            value={range[k]}
            onChange={(v) => setRange({ ...range, [k]: v })}
          />
        ))}
      <div className="actions">
        <button type="submit" disabled={start.isPending} data-testid="datev-start">
          {t('accounting.datevStart')}
        </button>
      </div>
      {start.isError && <ErrorNote error={start.error} />}
    </form>
  );
}

function DatevExports() {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const write = can(role, 'write');
  const [running, setRunning] = useState<string | null>(null);
  const list = useOrgQuery(['datev-exports', 'list'], async () =>
    must(await api.GET('/api/v1/accounting/datev/exports', { params: { query: { limit: 20 } } })),
  );
  const download = useFileDownload();
  const fetchZip = (e: DatevExport) =>
    void download.run(
      `/api/v1/accounting/datev/exports/${e.id}/file`,
      { fallbackName: `DATEV-${e.id}.zip` },
      `DATEV ${e.from} – ${e.to}`,
    );
  return (
    <Section title={t('accounting.datev')} id="datev">
      <p className="muted">{t('accounting.datevIntro')}</p>
      {write && <StartDatev onStarted={setRunning} />}
      {running && <ExportProgress key={running} id={running} />}
      {download.error ? <ErrorNote error={download.error} /> : null}
      <h3>{t('accounting.past')}</h3>
      <ListTable
        q={list}
        testId="datev-exports"
        empty={t('accounting.none')}
        caption={t('accounting.past')}
        columns={[
          { header: t('accounting.range'), cell: (e) => `${e.from} – ${e.to}` },
          {
            header: t('accounting.selection'),
            cell: (e) => t(e.select === 'all' ? 'accounting.selectAll' : 'accounting.selectNew'),
          },
          { header: t('accounting.statusHeader'), cell: (e) => t(`accounting.status.${e.status}`) },
          { header: t('accounting.postings'), num: true, cell: (e) => count(e.postings, locale) },
          {
            header: t('accounting.counts'),
            cell: (e) =>
              t('accounting.countsText', {
                invoices: e.counts.invoices,
                creditNotes: e.counts.creditNotes,
                payments: e.counts.payments,
                reversals: e.counts.refunds + e.counts.chargebacks,
              }),
          },
          {
            header: t('accounting.digest'),
            cell: (e) => (e.digest ? <code className="digest">{e.digest}</code> : '—'),
          },
          { header: t('accounting.createdAt'), cell: (e) => dateTime(e.createdAt, zone, locale) },
          write && {
            header: t('accounting.download'),
            srOnly: true,
            cell: (e) =>
              e.file ? (
                <SecondaryButton
                  disabled={download.busy}
                  data-testid={`datev-download-${e.id}`}
                  aria-label={t('accounting.downloadRange', { from: e.from, to: e.to })}
                  onClick={() => fetchZip(e)}
                >
                  {t('accounting.download')}
                </SecondaryButton>
              ) : e.status === 'completed' ? (
                <span className="muted">{t('accounting.notKept')}</span>
              ) : (
                '—'
              ),
          },
        ]}
      />
    </Section>
  );
}

/** The GDPdU package of a fiscal year, streamed as it is written (bytes received so far). */
function Gdpdu() {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const [year, setYear] = useState(String(new Date().getFullYear()));
  const download = useFileDownload();
  const state = download.state;
  return (
    <Section title={t('accounting.gdpdu')} id="gdpdu">
      <p className="muted">{t('accounting.gdpduIntro')}</p>
      {can(role, 'write') && (
        <form
          className="grid-form"
          id="gdpdu-form"
          aria-label={t('accounting.gdpduStart')}
          onSubmit={(e) => {
            e.preventDefault();
            void download.run(
              '/api/v1/accounting/gdpdu/exports',
              { method: 'POST', body: { fiscalYear: Number(year) }, fallbackName: `GDPdU-${year}.zip` },
              `GDPdU ${year}`,
            );
          }}
        >
          <YearField
            id="gdpdu-year"
            label={t('accounting.fiscalYear')}
            range={[2000, 2100]}
            value={year}
            onChange={setYear}
          />
          <div className="actions">
            <button type="submit" disabled={download.busy} data-testid="gdpdu-start">
              {t('accounting.gdpduStart')}
            </button>
          </div>
        </form>
      )}
      {state && (
        <ProgressBox
          testId="gdpdu-progress"
          data-busy={String(download.busy)}
          label={t(download.busy ? 'accounting.receiving' : 'accounting.received', {
            name: state.name,
            size: count(Math.ceil(state.bytes / 1024), locale),
          })}
          // The package is written as it streams: its size is known only at the end.
          max={download.busy ? undefined : 1}
          value={download.busy ? undefined : 1}
        >
          {state.error ? <ErrorNote error={state.error} /> : null}
        </ProgressBox>
      )}
    </Section>
  );
}

/** Accounting: DATEV exports with their progress and downloads, the GDPdU package, and the integrity check (Admins). */
export function Accounting() {
  const { t } = useI18n();
  const { role } = useMember();
  return (
    <>
      <h1>{t('accounting.title')}</h1>
      <p className="muted">{t('accounting.intro')}</p>
      <DatevExports />
      <Gdpdu />
      {can(role, 'admin') && <IntegrityCheck />}
    </>
  );
}
