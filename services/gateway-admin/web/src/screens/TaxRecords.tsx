import { useState, type FormEvent } from 'react';
import { api, must } from '../api';
import { count, dateTime, money } from '../format';
import { isMessageKey, useI18n } from '../i18n';
import { usePolledJob } from '../job';
import { JobProgressBox } from '../progress';
import { can } from '../session';
import { ErrorNote, Section, useMember, useOrgMutation, useOrgQuery, useOrgTimeZone } from '../ui';
import { PagedTable } from '../list';
import { TaxTabs } from './TaxTabs';

const SOURCE_KINDS = ['transaction', 'invoice', 'credit_note'] as const;
const ENTRY_TYPES = ['sale', 'reversal', 'credit'] as const;
const RECOGNITION = ['accrual', 'cash'] as const;
const PAGE = 20;

interface Filters {
  startDate?: string | undefined;
  endDate?: string | undefined;
  sourceKind?: (typeof SOURCE_KINDS)[number] | undefined;
  entryType?: (typeof ENTRY_TYPES)[number] | undefined;
  recognitionMode?: (typeof RECOGNITION)[number] | undefined;
}

const pick = <T extends string>(values: readonly T[], v: FormDataEntryValue | null): T | undefined =>
  values.find((x) => x === v);

/** A rebuild job followed until it ends: a bar of the source events processed of those to process. */
function RebuildProgress({ id }: { id: string }) {
  const { t, locale } = useI18n();
  const { job, record, ended } = usePolledJob({
    key: ['tax-rebuild', id],
    read: async () => must(await api.GET('/api/v1/tax/records/rebuild/{jobId}', { params: { path: { jobId: id } } })),
    active: (status) => status === undefined || status === 'queued' || status === 'running',
    // Entries the rebuild wrote show in the list once it ended.
    refresh: 'tax-records',
  });
  if (job.isError) return <ErrorNote error={job.error} />;
  if (!record) return null;
  const { processed, sourceEvents, created, existing, mismatched, failed, pending } = record.progress;
  const share =
    record.status === 'completed' ? 100 : sourceEvents > 0 ? Math.floor((processed * 100) / sourceEvents) : 0;
  return (
    <JobProgressBox
      testId="rebuild-progress"
      status={record.status}
      statusText={t(`tax.rebuildStatus.${record.status}`)}
      detail={
        <>
          <span data-testid="rebuild-percent">{t('tax.percentDone', { percent: share })}</span> ·{' '}
          {t('tax.rebuildCounts', { processed: count(processed, locale), total: sourceEvents })}
        </>
      }
      max={100}
      value={share}
    >
      {ended && (
        <p role="status" className={record.status === 'failed' ? 'notice error' : 'notice'}>
          {record.status === 'failed'
            ? t('tax.rebuildFailed', { error: record.error ?? '' })
            : t('tax.rebuildDone', { created, existing, mismatched, failed, pending })}
        </p>
      )}
    </JobProgressBox>
  );
}

function Rebuild() {
  const { t } = useI18n();
  const [jobId, setJobId] = useState<string | null>(null);
  const start = useOrgMutation(
    async () => must(await api.POST('/api/v1/tax/records/rebuild', { body: {} })),
    ['tax-rebuild'],
    (job) => setJobId(job.id),
  );
  return (
    <Section title={t('tax.rebuild')} id="tax-rebuild">
      <p className="muted">{t('tax.rebuildIntro')}</p>
      <button
        type="button"
        data-testid="rebuild-start"
        disabled={start.isPending}
        onClick={() => start.mutate(undefined)}
      >
        {t('tax.rebuildStart')}
      </button>
      {start.isError && <ErrorNote error={start.error} />}
      {jobId && <RebuildProgress key={jobId} id={jobId} />}
    </Section>
  );
}

/** The tax-record ledger with its filters, paged on the server, and ledger rebuilds. */
export function TaxRecords() {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const [filters, setFilters] = useState<Filters>({});
  const [range, setRange] = useState<Pick<Filters, 'startDate' | 'endDate'>>({});
  const [page, setPage] = useState(1);
  const list = useOrgQuery(['tax-records', filters, page], async () =>
    must(await api.GET('/api/v1/tax/records', { params: { query: { ...filters, page, limit: PAGE } } })),
  );
  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setFilters({
      ...range,
      sourceKind: pick(SOURCE_KINDS, form.get('sourceKind')),
      entryType: pick(ENTRY_TYPES, form.get('entryType')),
      recognitionMode: pick(RECOGNITION, form.get('recognitionMode')),
    });
    setPage(1);
  };
  const valueLabel = (v: string) => {
    const key = `tax.value.${v}`;
    return isMessageKey(key) ? t(key) : v;
  };
  const select = (name: string, label: string, values: readonly string[]) => (
    <div>
      <label htmlFor={`records-${name}`}>{label}</label>
      <select id={`records-${name}`} name={name} defaultValue="">
        <option value="">{t('tax.all')}</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {valueLabel(v)}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <>
      <h1>{t('tax.recordsTitle')}</h1>
      <TaxTabs />
      {can(role, 'write') && <Rebuild />}
      <Section title={t('tax.records')} id="tax-records">
        <form className="filters" onSubmit={apply} aria-label={t('tax.recordFilters')}>
          {(
            [
              ['startDate', 'records-from', t('tax.pointFrom')],
              ['endDate', 'records-to', t('tax.pointTo')],
            ] as const
          ).map(([key, id, label]) => (
            <div key={key}>
              <label htmlFor={id}>{label}</label>
              <input
                id={id}
                type="date"
                value={range[key] ?? ''}
                onChange={(e) => setRange({ ...range, [key]: e.target.value || undefined })}
              />
            </div>
          ))}
          {select('sourceKind', t('tax.sourceKind'), SOURCE_KINDS)}
          {select('entryType', t('tax.entryType'), ENTRY_TYPES)}
          {select('recognitionMode', t('tax.recognition'), RECOGNITION)}
          <button type="submit">{t('payments.apply')}</button>
        </form>
        <PagedTable
          q={list}
          page={page}
          limit={PAGE}
          onPage={setPage}
          pager={{ label: t('tax.recordsPages') }}
          testId="tax-records"
          caption={t('tax.records')}
          empty={t('tax.noRecords')}
          columns={[
            {
              header: t('tax.taxPoint'),
              cell: (r) => (r.taxPointAt ? dateTime(r.taxPointAt, zone, locale) : r.taxPointDate),
            },
            { header: t('tax.sourceKind'), cell: (r) => t(`tax.value.${r.sourceKind}`) },
            { header: t('tax.entryType'), cell: (r) => t(`tax.value.${r.entryType}`) },
            { header: t('tax.recognition'), cell: (r) => t(`tax.value.${r.recognitionMode}`) },
            {
              header: t('tax.taxCountries'),
              cell: (r) => [...new Set(r.lines.map((l) => l.taxCountry ?? '—'))].join(', '),
            },
            { header: t('tax.net'), num: true, cell: (r) => money(r.totals.net, r.currency, locale) },
            { header: t('tax.tax'), num: true, cell: (r) => money(r.totals.tax, r.currency, locale) },
            { header: t('tax.gross'), num: true, cell: (r) => money(r.totals.gross, r.currency, locale) },
          ]}
        />
      </Section>
    </>
  );
}
