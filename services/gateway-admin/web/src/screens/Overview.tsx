import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { api, must } from '../api';
import { TimeChart } from '../chart';
import { count, isTimeZone, money, percent } from '../format';
import { useI18n } from '../i18n';
import { FilterSelect, SelectField, SiteFilter } from '../forms';
import { onlySet } from '../list';
import { ErrorNote, Loading, Section, StatusBadge, useMember, useOrgTimeZone } from '../ui';
import { paymentColumns } from '../payment-columns';
import { PERIODS, type OverviewSearch } from '../search';
import { DataTable } from '../table';

const STATUS_ROWS = [
  ['completed', 1],
  ['pending', 0],
  ['initiated', -1],
  ['failed', 2],
  ['canceled', -2],
  ['refunded', 3],
  ['disputed', 4],
] as const;

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'Europe/London',
  'Europe/Paris',
  'America/New_York',
  'America/Los_Angeles',
  'Asia/Kolkata',
  'Asia/Tokyo',
];

export function Overview({ search }: { search: OverviewSearch }) {
  const { t, locale } = useI18n();
  const { organization } = useMember();
  const orgZone = useOrgTimeZone();
  const navigate = useNavigate();
  const timezone = search.tz && isTimeZone(search.tz) ? search.tz : orgZone;
  const period = search.period ?? 'last_30_days';
  const set = (patch: Partial<OverviewSearch>) =>
    void navigate({ to: '/', search: (prev: OverviewSearch) => ({ ...prev, ...patch }) });

  const dash = useQuery({
    queryKey: [organization.id, 'dashboard', period, timezone, search.siteId, search.currency],
    queryFn: async () =>
      must(
        await api.GET('/api/v1/dashboard', {
          params: {
            query: {
              period,
              timezone,
              ...onlySet({ siteId: search.siteId, currency: search.currency }),
            },
          },
        }),
      ),
  });
  const zones = useMemo(() => [...new Set([orgZone, timezone, ...ZONES])], [orgZone, timezone]);
  const d = dash.data;
  const payment = paymentColumns(t, locale, timezone);
  const chartCurrency = search.currency ?? d?.currencies[0]?.currency;
  const chart = useMemo(() => {
    if (!d || !chartCurrency) return null;
    const pick = (p: (typeof d.series.points)[number]) => p.currencies.find((c) => c.currency === chartCurrency);
    return {
      times: d.series.points.map((p) => Date.parse(p.start) / 1000),
      series: [
        { label: t('overview.gross'), color: '#1d4ed8', values: d.series.points.map((p) => pick(p)?.grossVolume ?? 0) },
        { label: t('overview.net'), color: '#047857', values: d.series.points.map((p) => pick(p)?.netRevenue ?? 0) },
      ],
    };
  }, [d, chartCurrency, t]);
  const fmt = useMemo(
    () => (v: number) => (chartCurrency ? money(v, chartCurrency, locale) : String(v)),
    [chartCurrency, locale],
  );

  return (
    <>
      <h1>{t('overview.title')}</h1>
      <form className="filters" aria-label={t('overview.filters')} onSubmit={(e) => e.preventDefault()}>
        <SelectField
          id="period"
          label={t('overview.period')}
          value={period}
          options={PERIODS.map((p) => [p, t(`period.${p}`)] as const)}
          onChange={(p) => set({ period: p })}
        />
        <SelectField
          id="tz"
          label={t('overview.timezone')}
          value={timezone}
          options={zones.map((z) => [z, z] as const)}
          onChange={(tz) => set({ tz })}
        />
        <SiteFilter id="site" value={search.siteId} onChange={(siteId) => set({ siteId })} />
        <FilterSelect
          id="currency"
          label={t('overview.currency')}
          anyLabel={t('overview.allCurrencies')}
          value={search.currency}
          options={[
            ...new Set([
              ...(search.currency ? [search.currency] : []),
              ...(d?.currencies.map((c) => c.currency) ?? []),
            ]),
          ].map((c): readonly [string, string] => [c, c])}
          onChange={(currency) => set({ currency })}
        />
      </form>
      {dash.isPending && <Loading />}
      {dash.isError && <ErrorNote error={dash.error} retry={() => void dash.refetch()} />}
      {d && (
        <>
          <div className="figures" data-testid="figures">
            {d.currencies.length === 0 && <p className="muted">{t('overview.none')}</p>}
            {d.currencies.map((c) => (
              <div key={c.currency} className="figure-group" data-currency={c.currency}>
                <div className="figure">
                  <span className="label">
                    {t('overview.gross')} ({c.currency})
                  </span>
                  <span className="value" data-testid={`gross-${c.currency}`}>
                    {money(c.grossVolume, c.currency, locale)}
                  </span>
                </div>
                <div className="figure">
                  <span className="label">
                    {t('overview.net')} ({c.currency})
                  </span>
                  <span className="value">{money(c.netRevenue, c.currency, locale)}</span>
                </div>
                <div className="figure">
                  <span className="label">{t('overview.completed')}</span>
                  <span className="value">{count(c.completedPayments, locale)}</span>
                </div>
                <div className="figure">
                  <span className="label">{t('overview.failureRatio')}</span>
                  <span className="value">{percent(c.failureRatio, locale)}</span>
                </div>
              </div>
            ))}
          </div>
          <Section title={t('overview.chart', { currency: chartCurrency ?? '—' })} id="chart">
            {chart ? (
              <TimeChart
                times={chart.times}
                series={chart.series}
                label={t('overview.chart', { currency: chartCurrency ?? '' })}
                format={fmt}
                timeZone={timezone}
                locale={locale}
                granularity={d.series.granularity}
              />
            ) : (
              <p className="muted">{t('overview.chartEmpty')}</p>
            )}
          </Section>
          <div className="columns">
            <Section title={t('overview.counts')} id="counts">
              <table>
                <tbody>
                  {STATUS_ROWS.map(([field, code]) => (
                    <tr key={field}>
                      <th scope="row">
                        <StatusBadge status={code} />
                      </th>
                      <td className="num">{count(d.transactionCounts[field], locale)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Section>
            <Section title={t('overview.topProviders')} id="providers">
              <DataTable
                rows={d.topProvidersByCount}
                rowKey={(p) => `${p.providerType}:${p.providerId ?? ''}`}
                columns={[
                  { header: t('payments.provider'), cell: (p) => p.providerType },
                  { header: t('overview.completed'), num: true, cell: (p) => count(p.completedPayments, locale) },
                  { header: t('overview.failureRatio'), num: true, cell: (p) => percent(p.failureRatio, locale) },
                ]}
              />
            </Section>
          </div>
          <Section title={t('overview.recent')} id="recent">
            <DataTable
              rows={d.recentTransactions}
              rowKey={(r) => r.id}
              empty={t('overview.none')}
              columns={[payment.created, payment.reference, payment.status, payment.amount]}
            />
          </Section>
        </>
      )}
    </>
  );
}
