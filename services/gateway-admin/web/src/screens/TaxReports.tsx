import { useMemo, useState, type FormEvent } from 'react';
import { useQueries } from '@tanstack/react-query';
import { api, must } from '../api';
import { TimeChart } from '../chart';
import { count, money } from '../format';
import { DateRangeFields, YearField } from '../forms';
import { useI18n } from '../i18n';
import { useFileDownload } from '../download';
import { can } from '../session';
import { DataTable, type Column } from '../table';
import { ErrorNote, Loaded, Section, useMember, useOrgQuery } from '../ui';
import { periodBuckets } from '../tax-periods';
import { TaxTabs } from './TaxTabs';

const RANGE_KINDS = ['by-country', 'by-country-details', 'revenue-by-country', 'currencies'] as const;
const QUARTER_KINDS = ['vat-oss', 'vat-oss-details'] as const;
type RangeKind = (typeof RANGE_KINDS)[number];
type QuarterKind = (typeof QUARTER_KINDS)[number];
type Kind = RangeKind | QuarterKind;

type Query =
  { kind: RangeKind; startDate: string; endDate: string } | { kind: QuarterKind; year: number; quarter: number };

const isRange = (k: Kind): k is RangeKind => (RANGE_KINDS as readonly string[]).includes(k);
const KINDS: readonly Kind[] = [...RANGE_KINDS, ...QUARTER_KINDS];

function today(): { day: string; year: number; quarter: number; quarterStart: string } {
  const now = new Date();
  const year = now.getUTCFullYear();
  const quarter = Math.floor(now.getUTCMonth() / 3) + 1;
  const quarterStart = `${year}-${String((quarter - 1) * 3 + 1).padStart(2, '0')}-01`;
  return { day: now.toISOString().slice(0, 10), year, quarter, quarterStart };
}

async function fetchReport(q: Query) {
  if ('year' in q) {
    const query = { year: q.year, quarter: q.quarter };
    return q.kind === 'vat-oss'
      ? { kind: q.kind, report: must(await api.GET('/api/v1/tax/reports/vat-oss', { params: { query } })) }
      : { kind: q.kind, report: must(await api.GET('/api/v1/tax/reports/vat-oss/details', { params: { query } })) };
  }
  const query = { startDate: q.startDate, endDate: q.endDate };
  switch (q.kind) {
    case 'by-country':
      return { kind: q.kind, report: must(await api.GET('/api/v1/tax/reports/by-country', { params: { query } })) };
    case 'by-country-details':
      return {
        kind: q.kind,
        report: must(await api.GET('/api/v1/tax/reports/by-country/details', { params: { query } })),
      };
    case 'revenue-by-country':
      return {
        kind: q.kind,
        report: must(await api.GET('/api/v1/tax/reports/revenue-by-country', { params: { query } })),
      };
    case 'currencies':
      return { kind: q.kind, report: must(await api.GET('/api/v1/tax/reports/currencies', { params: { query } })) };
  }
}
type Answer = Awaited<ReturnType<typeof fetchReport>>;

/** The table of a report's rows. */
function ReportTable({ answer }: { answer: Answer }) {
  const { t, locale } = useI18n();
  const m = (minor: number, currency: string) => money(minor, currency, locale);
  const eur = (minor: number) => money(minor, 'EUR', locale);
  const rate = (n: number) => `${new Intl.NumberFormat(locale, { maximumFractionDigits: 3 }).format(n)} %`;
  const caption = t(`tax.report.${answer.kind}`);
  const common = { testId: 'tax-report', caption, empty: t('tax.reportEmpty') };
  // The columns several reports share.
  const country: Column<{ country: string }> = { header: t('tax.country'), cell: (r) => r.country };
  const currency: Column<{ currency: string }> = { header: t('tax.currency'), cell: (r) => r.currency };
  const net: Column<{ net: number; currency: string }> = {
    header: t('tax.net'),
    num: true,
    cell: (r) => m(r.net, r.currency),
  };
  const tax: Column<{ tax: number; currency: string }> = {
    header: t('tax.tax'),
    num: true,
    cell: (r) => m(r.tax, r.currency),
  };
  const gross: Column<{ gross: number; currency: string }> = {
    header: t('tax.gross'),
    num: true,
    cell: (r) => m(r.gross, r.currency),
  };
  const taxEur: Column<{ eur?: { tax: number } | null | undefined }> = {
    header: t('tax.taxEur'),
    num: true,
    cell: (r) => (r.eur ? eur(r.eur.tax) : '—'),
  };
  /** A country and currency's amounts, as the by-country and revenue reports begin. */
  const amounts = [net, tax, gross];
  const countryAmounts = [country, currency, ...amounts];
  const countryKey = (r: { country: string; currency: string }) => `${r.country}-${r.currency}`;
  const table = <T,>(rows: readonly T[], rowKey: (row: T) => string, columns: ReadonlyArray<Column<T>>) => (
    <DataTable {...common} rows={rows} rowKey={rowKey} columns={columns} />
  );
  switch (answer.kind) {
    case 'by-country':
      return table(answer.report.data, countryKey, [
        ...countryAmounts,
        { header: t('tax.lines'), num: true, cell: (r) => count(r.lines, locale) },
        taxEur,
      ]);
    case 'by-country-details':
      return table(
        answer.report.data,
        (r) => `${r.country}-${r.currency}-${r.taxRateCode}-${r.decision}-${r.itemType}-${r.taxRate}`,
        [
          country,
          currency,
          { header: t('tax.code'), cell: (r) => <code>{r.taxRateCode}</code> },
          { header: t('tax.percent'), num: true, cell: (r) => rate(r.taxRate) },
          { header: t('tax.decision'), cell: (r) => r.decision },
          { header: t('tax.itemType'), cell: (r) => r.itemType },
          net,
          tax,
        ],
      );
    case 'revenue-by-country':
      return table(answer.report.data, countryKey, [
        ...countryAmounts,
        { header: t('tax.sales'), num: true, cell: (r) => count(r.sales, locale) },
        { header: t('tax.corrections'), num: true, cell: (r) => count(r.corrections, locale) },
      ]);
    case 'currencies':
      return table(answer.report.data, (r) => r.currency, [
        currency,
        ...amounts,
        { header: t('tax.entries'), num: true, cell: (r) => count(r.entries, locale) },
        taxEur,
      ]);
    case 'vat-oss':
      return table(answer.report.countries, (c) => c.country, [
        country,
        {
          header: t('tax.taxable'),
          num: true,
          cell: (c) => eur(c.supplies.reduce((s, x) => s + x.taxableAmount, 0)),
        },
        { header: t('tax.vat'), num: true, cell: (c) => eur(c.vatTotal) },
        { header: t('tax.corrections'), num: true, cell: (c) => eur(c.correctionsTotal) },
        {
          header: t('tax.balance'),
          num: true,
          cell: (c) => <span data-country={c.country}>{eur(c.balance)}</span>,
        },
      ]);
    case 'vat-oss-details':
      return table(answer.report.data, (r) => `${r.country}-${r.supplyType}-${r.rateType}-${r.vatRate}-${r.currency}`, [
        country,
        { header: t('tax.supplyType'), cell: (r) => r.supplyType },
        { header: t('tax.type'), cell: (r) => r.rateType },
        { header: t('tax.percent'), num: true, cell: (r) => rate(r.vatRate) },
        currency,
        net,
        tax,
        { header: t('tax.lines'), num: true, cell: (r) => count(r.lines, locale) },
      ]);
  }
}

/** One period of a chart: when it starts, its name, and its tax and base in EUR cents. */
interface Point {
  at: number;
  name: string;
  tax: number;
  base: number;
}

/** Tax and base of periods in EUR, as a chart (uPlot) and the same figures as text. */
function PeriodChart({
  found,
  label,
  taxLabel,
  baseLabel,
}: {
  found: Point[];
  label: string;
  taxLabel: string;
  baseLabel: string;
}) {
  const { t, locale } = useI18n();
  // Drawn again only when the figures change (the answers they come from are new arrays every render).
  const signature = JSON.stringify(found);
  const points = useMemo(() => JSON.parse(signature) as Point[], [signature]);
  const series = useMemo(
    () => [
      { label: taxLabel, values: points.map((p) => p.tax / 100), color: '#2563eb' },
      { label: baseLabel, values: points.map((p) => p.base / 100), color: '#16a34a' },
    ],
    [points, taxLabel, baseLabel],
  );
  const times = useMemo(() => points.map((p) => p.at), [points]);
  const format = useMemo(() => {
    const f = new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' });
    return (v: number) => f.format(v);
  }, [locale]);
  if (points.length === 0) return null;
  return (
    <figure className="chart-figure" data-testid="tax-chart">
      <TimeChart
        times={times}
        series={series}
        label={label}
        format={format}
        timeZone="UTC"
        locale={locale}
        granularity="month"
      />
      <figcaption>
        <ul className="changes">
          {points.map((p) => (
            <li key={p.at}>
              {t('tax.chartLine', {
                period: p.name,
                taxLabel,
                tax: money(p.tax, 'EUR', locale),
                baseLabel,
                base: money(p.base, 'EUR', locale),
              })}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

/** The VAT OSS of each quarter of a year so far (EUR). */
function OssYearChart({ year }: { year: number }) {
  const { t } = useI18n();
  const { organization } = useMember();
  const now = today();
  const quarters = [1, 2, 3, 4].filter((q) => year < now.year || (year === now.year && q <= now.quarter));
  const answers = useQueries({
    queries: quarters.map((quarter) => ({
      queryKey: [organization.id, 'tax-report', 'vat-oss', year, quarter],
      queryFn: async () => must(await api.GET('/api/v1/tax/reports/vat-oss', { params: { query: { year, quarter } } })),
      retry: false,
    })),
  });
  // A quarter without an ECB rate yet (422) is left out.
  const found = quarters.flatMap((q, i) => {
    const r = answers[i]?.data;
    return r
      ? [
          {
            at: Date.UTC(year, (q - 1) * 3, 1) / 1000,
            name: t('tax.quarterOf', { quarter: q, year }),
            tax: r.totals.vatAmount,
            base: r.totals.taxableAmount,
          },
        ]
      : [];
  });
  return (
    <PeriodChart
      found={found}
      label={t('tax.ossChart', { year })}
      taxLabel={t('tax.vat')}
      baseLabel={t('tax.taxable')}
    />
  );
}

/** Tax and net in EUR of each month of a range (each quarter, over more than a year), from the currencies report. */
function RangeChart({ startDate, endDate }: { startDate: string; endDate: string }) {
  const { t, locale } = useI18n();
  const { organization } = useMember();
  const buckets = periodBuckets(startDate, endDate);
  const answers = useQueries({
    queries: buckets.map((b) => ({
      queryKey: [organization.id, 'tax-report', 'currencies', b.startDate, b.endDate],
      queryFn: async () =>
        must(
          await api.GET('/api/v1/tax/reports/currencies', {
            params: { query: { startDate: b.startDate, endDate: b.endDate } },
          }),
        ),
      retry: false,
    })),
  });
  const monthName = new Intl.DateTimeFormat(locale, { month: 'short', year: 'numeric', timeZone: 'UTC' });
  const found = buckets.flatMap((b, i) => {
    const r = answers[i]?.data;
    return r
      ? [
          {
            at: b.at,
            name: b.quarterly
              ? t('tax.quarterOf', { quarter: Math.floor(b.month / 3) + 1, year: b.year })
              : monthName.format(new Date(b.at * 1000)),
            tax: r.totals.eur.tax,
            base: r.totals.eur.net,
          },
        ]
      : [];
  });
  return (
    <PeriodChart
      found={found}
      label={t('tax.rangeChart', { from: startDate, to: endDate })}
      taxLabel={t('tax.tax')}
      baseLabel={t('tax.net')}
    />
  );
}

/** The query string of a report's export. */
function exportPath(q: Query, file: 'csv' | 'xml' | 'elster'): string {
  if ('year' in q) {
    const s = new URLSearchParams({ year: String(q.year), quarter: String(q.quarter) });
    return `/api/v1/tax/reports/vat-oss/${file === 'xml' ? 'export' : 'export-elster'}?${s.toString()}`;
  }
  const s = new URLSearchParams({ startDate: q.startDate, endDate: q.endDate });
  const base = q.kind === 'revenue-by-country' ? 'revenue-by-country' : 'by-country';
  return `/api/v1/tax/reports/${base}/export?${s.toString()}`;
}

function Downloads({ q }: { q: Query }) {
  const { t } = useI18n();
  const download = useFileDownload();
  const files: Array<['csv' | 'xml' | 'elster', string, string]> = isRange(q.kind)
    ? q.kind === 'by-country' || q.kind === 'revenue-by-country'
      ? [['csv', t('tax.downloadCsv'), `${q.kind}.csv`]]
      : []
    : [
        ['xml', t('tax.downloadOssXml'), 'vat-oss.xml'],
        ['elster', t('tax.downloadElster'), 'vat-oss-elster.csv'],
      ];
  if (files.length === 0) return null;
  return (
    <div className="actions">
      {files.map(([file, label, name]) => (
        <button
          key={file}
          type="button"
          className="secondary"
          data-testid={`download-${file}`}
          disabled={download.busy}
          onClick={() => void download.run(exportPath(q, file), { fallbackName: name })}
        >
          {label}
        </button>
      ))}
      {download.error ? <ErrorNote error={download.error} /> : null}
    </div>
  );
}

/** Tax reports: the six reports over a period (VAT OSS by year and quarter), a chart, and their files. */
export function TaxReports() {
  const { t } = useI18n();
  const { role } = useMember();
  const now = today();
  const [kind, setKind] = useState<Kind>('by-country');
  const [range, setRange] = useState({ startDate: now.quarterStart, endDate: now.day });
  const [period, setPeriod] = useState({ year: now.year, quarter: now.quarter });
  const [query, setQuery] = useState<Query | null>(null);
  const report = useOrgQuery(['tax-report', query], async () => (query ? fetchReport(query) : null));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setQuery(isRange(kind) ? { kind, ...range } : { kind, ...period });
  };
  return (
    <>
      <h1>{t('tax.reportsTitle')}</h1>
      <TaxTabs />
      <Section title={t('tax.reportPick')} id="tax-report-form">
        <form className="grid-form" id="report-form" aria-label={t('tax.reportPick')} onSubmit={submit}>
          <div>
            <label htmlFor="report-kind">{t('tax.reportKind')}</label>
            <select
              id="report-kind"
              value={kind}
              onChange={(e) => {
                const next = KINDS.find((k) => k === e.target.value);
                if (next) setKind(next);
              }}
            >
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {t(`tax.report.${k}`)}
                </option>
              ))}
            </select>
          </div>
          {isRange(kind) ? (
            <DateRangeFields
              idPrefix="report"
              required
              value={range}
              onChange={(r) => setRange({ startDate: r.startDate ?? '', endDate: r.endDate ?? '' })}
            />
          ) : (
            <>
              <YearField
                id="report-year"
                label={t('tax.year')}
                range={[2021, 9999]}
                value={String(period.year)}
                onChange={(year) => setPeriod({ ...period, year: Number(year) })}
              />
              <div>
                <label htmlFor="report-quarter">{t('tax.quarter')}</label>
                <select
                  id="report-quarter"
                  value={period.quarter}
                  onChange={(e) => setPeriod({ ...period, quarter: Number(e.target.value) })}
                >
                  {[1, 2, 3, 4].map((q) => (
                    <option key={q} value={q}>
                      {t('tax.quarterN', { quarter: q })}
                    </option>
                  ))}
                </select>
              </div>
            </>
          )}
          <div className="actions">
            <button type="submit" data-testid="report-show">
              {t('tax.showReport')}
            </button>
          </div>
        </form>
      </Section>
      {query && (
        <Section title={t(`tax.report.${query.kind}`)} id="tax-report">
          <Loaded q={report}>{(answer) => (answer ? <ReportTable answer={answer} /> : null)}</Loaded>
          {can(role, 'write') && <Downloads q={query} />}
          {'year' in query ? (
            <OssYearChart year={query.year} />
          ) : (
            <RangeChart startDate={query.startDate} endDate={query.endDate} />
          )}
        </Section>
      )}
    </>
  );
}
