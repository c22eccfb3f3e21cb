import { useState, type ReactNode } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { nextCycleDates, type CycleUnit } from '../../../../../libs/contracts/src/recurring-cycles';
import { BackLink } from '../layout';
import { api, must, type paths } from '../api';
import { ConfirmAction } from '../confirm';
import { FilterSelect, GridForm, SelectField, TextField } from '../forms';
import { dateTime, day, isTimeZone, money } from '../format';
import { useI18n } from '../i18n';
import { onlySet, PagedTable, usePagedList } from '../list';
import type { RecurringSearch } from '../search';
import { can } from '../session';
import { DataTable } from '../table';
import { ErrorNote, Facts, Loaded, Section, useMember, useOrgMutation, useOrgQuery, useOrgTimeZone } from '../ui';

type Schedule = paths['/api/v1/invoices/recurring/{id}']['get']['responses'][200]['content']['application/json'];
type ScheduleStatus = Schedule['status'];
const STATUSES: readonly ScheduleStatus[] = ['active', 'paused', 'cancel_requested', 'cancelled', 'completed'];
const UNITS: readonly CycleUnit[] = ['day', 'week', 'month', 'year'];
/** Longest cancellation reason the API keeps (it trims, then cuts at 500 characters). */
const REASON_MAX = 500;
/** Cycle dates the form shows as the merchant types. */
const PREVIEW_CYCLES = 4;

function StatusBadge({ status }: { status: ScheduleStatus }) {
  const { t } = useI18n();
  return (
    <span className={`badge recurring-${status}`} data-status={status}>
      {t(`recurringStatus.${status}`)}
    </span>
  );
}

function cadence(t: ReturnType<typeof useI18n>['t'], s: Pick<Schedule, 'interval' | 'intervalCount'>): string {
  return t(`recurring.every.${s.interval}`, { n: s.intervalCount });
}

/** Recurring schedules: status filter, server-side paging. */
export function RecurringSchedules({ search }: { search: RecurringSearch }) {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const navigate = useNavigate();
  const list = usePagedList({
    key: ['recurring'],
    search,
    go: (next: RecurringSearch) => void navigate({ to: '/recurring', search: next }),
    read: async (page, limit) =>
      must(
        await api.GET('/api/v1/invoices/recurring', {
          params: { query: { page, limit, ...onlySet({ status: search.status }) } },
        }),
      ),
  });
  return (
    <>
      <h1>{t('recurring.title')}</h1>
      {can(role, 'write') && (
        <p>
          <Link to="/recurring/new" search={{}} id="new-schedule">
            {t('recurring.new')}
          </Link>
        </p>
      )}
      <form className="filters" aria-label={t('overview.filters')} onSubmit={(e) => e.preventDefault()}>
        <FilterSelect
          id="rf-status"
          label={t('invoices.status')}
          anyLabel={t('payments.anyStatus')}
          value={search.status}
          options={STATUSES.map((s): readonly [ScheduleStatus, string] => [s, t(`recurringStatus.${s}`)])}
          onChange={(status) => void navigate({ to: '/recurring', search: { status } })}
        />
      </form>
      <PagedTable
        {...list.paging}
        testId="schedules"
        caption={t('recurring.title')}
        empty={t('recurring.empty')}
        recordLink={{ header: t('recurring.name'), to: '/recurring/$id', text: (s) => s.name }}
        columns={[
          { header: t('invoices.status'), cell: (s) => <StatusBadge status={s.status} /> },
          { header: t('recurring.cadence'), cell: (s) => cadence(t, s) },
          { header: t('recurring.nextRun'), cell: (s) => day(s.nextRunDate, locale) },
          { header: t('recurring.generated'), num: true, cell: (s) => s.invoicesGenerated },
        ]}
      />
    </>
  );
}

/** A new schedule from an invoice's lines, client and terms; the next cycle dates shown as the merchant types. */
export function NewSchedule({ invoiceId }: { invoiceId?: string | undefined }) {
  const { t, locale } = useI18n();
  const navigate = useNavigate();
  const zone = useOrgTimeZone();
  const [source, setSource] = useState(invoiceId ?? '');
  const [name, setName] = useState('');
  const [startDate, setStartDate] = useState('');
  const [unit, setUnit] = useState<CycleUnit>('month');
  const [count, setCount] = useState('1');
  const [timezone, setTimezone] = useState<string | null>(null);
  const tz = timezone ?? zone;
  const invoices = useOrgQuery(['invoices', 'templates'], async () =>
    must(await api.GET('/api/v1/invoices', { params: { query: { limit: 50 } } })),
  );
  const chosen = useOrgQuery(['invoices', 'one', source], async () =>
    source ? must(await api.GET('/api/v1/invoices/{id}', { params: { path: { id: source } } })) : null,
  );
  const every = Number(count);
  const dates =
    Number.isInteger(every) && every >= 1 ? nextCycleDates(startDate, { unit, count: every }, PREVIEW_CYCLES) : [];
  const save = useOrgMutation(
    async () => {
      const inv = chosen.data;
      if (!inv) throw new Error(t('recurring.needTemplate'));
      if (!isTimeZone(tz)) throw new Error(t('recurring.badZone', { zone: tz }));
      return must(
        await api.POST('/api/v1/invoices/recurring', {
          body: {
            ...(name.trim() ? { name: name.trim() } : {}),
            startDate,
            interval: unit,
            intervalCount: every,
            timezone: tz,
            template: {
              siteId: inv.siteId,
              clientId: inv.clientId,
              currency: inv.currency,
              items: inv.items,
              ...(inv.paymentTermsDays !== null ? { paymentTermsDays: inv.paymentTermsDays } : {}),
              ...(inv.notes ? { notes: inv.notes } : {}),
            },
          },
        }),
      );
    },
    ['recurring'],
    (created) => void navigate({ to: '/recurring/$id', params: { id: created.id } }),
  );
  const options = invoices.data?.items ?? [];
  return (
    <>
      <BackLink to="/recurring" label={t('recurring.back')} />
      <h1>{t('recurring.new')}</h1>
      <GridForm id="schedule-form" label={t('recurring.new')} submit={t('recurring.create')} write={save}>
        <SelectField
          id="rs-template"
          label={t('recurring.template')}
          hint={t('recurring.templateHint')}
          value={source}
          onChange={setSource}
          options={[
            ['', t('recurring.chooseTemplate')],
            ...(chosen.data && !options.some((i) => i.id === chosen.data?.id) ? [chosen.data] : [])
              .concat(options)
              .map(
                (i) =>
                  [
                    i.id,
                    `${i.number ?? i.proformaNumber ?? t('invoices.draftNumber')} · ${i.snapshot?.buyer.name ?? ''} · ${money(i.totals.gross, i.currency, locale)}`,
                  ] as const,
              ),
          ]}
        />
        <TextField
          id="rs-name"
          label={t('recurring.name')}
          hint={t('recurring.nameHint')}
          value={name}
          onChange={setName}
          maxLength={200}
        />
        <TextField
          id="rs-start"
          label={t('recurring.startDate')}
          type="date"
          value={startDate}
          onChange={setStartDate}
        />
        <SelectField
          id="rs-interval"
          label={t('recurring.interval')}
          value={unit}
          onChange={setUnit}
          options={UNITS.map((u) => [u, t(`recurring.unit.${u}`)] as const)}
        />
        <TextField id="rs-count" label={t('recurring.intervalCount')} type="number" value={count} onChange={setCount} />
        <TextField
          id="rs-timezone"
          label={t('recurring.timezone')}
          hint={t('recurring.timezoneHint')}
          value={tz}
          onChange={setTimezone}
          plain
        />
      </GridForm>
      <Section title={t('recurring.nextDates')} id="next-dates">
        {dates.length === 0 ? (
          <p className="muted">{t('recurring.nextDatesNeed')}</p>
        ) : (
          <ol data-testid="next-dates" aria-live="polite">
            {dates.map((d) => (
              <li key={d} data-date={d}>
                {day(d, locale)}
              </li>
            ))}
          </ol>
        )}
      </Section>
    </>
  );
}

/** A schedule: its facts, pause, resume, cancel with a reason, and the upcoming charges with their tax. */
export function ScheduleScreen({ id }: { id: string }) {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const schedule = useOrgQuery(['recurring', 'one', id], async () =>
    must(await api.GET('/api/v1/invoices/recurring/{id}', { params: { path: { id } } })),
  );
  return (
    <Loaded q={schedule}>
      {(s) => (
        <>
          <BackLink to="/recurring" label={t('recurring.back')} />
          <h1>
            {t('recurring.heading', { name: s.name })} <StatusBadge status={s.status} />
          </h1>
          <Section title={t('invoices.details')} id="schedule-details">
            <Facts
              rows={[
                [t('recurring.cadence'), cadence(t, s)],
                [t('recurring.startDate'), day(s.startDate, locale)],
                [t('recurring.nextRun'), <span data-testid="next-run">{day(s.nextRunDate, locale)}</span>],
                [t('recurring.timezone'), s.timezone],
                [t('recurring.generated'), s.invoicesGenerated],
                [
                  t('invoices.client'),
                  <Link to="/clients/$id" params={{ id: s.template.clientId }}>
                    {t('invoices.openClient')}
                  </Link>,
                ],
                ...(s.pausedAt
                  ? [[t('recurring.pausedAt'), dateTime(s.pausedAt, zone, locale)] as [string, string]]
                  : []),
                ...(s.cancellationRequestedAt
                  ? [
                      [t('recurring.cancelledFrom'), day(s.effectiveAt, locale)] as [string, string],
                      [
                        t('recurring.reason'),
                        <span data-testid="cancellation-reason">{s.cancellationReason ?? '—'}</span>,
                      ] as [string, ReactNode],
                    ]
                  : []),
              ]}
            />
            {can(role, 'write') && <PauseOrResume id={s.id} status={s.status} />}
          </Section>
          {can(role, 'write') && (s.status === 'active' || s.status === 'paused') && <CancelSchedule id={s.id} />}
          {can(role, 'write') && <Upcoming id={s.id} updatedAt={s.updatedAt} />}
        </>
      )}
    </Loaded>
  );
}

/** Pause an active schedule, resume a paused one. */
function PauseOrResume({ id, status }: { id: string; status: ScheduleStatus }) {
  const { t } = useI18n();
  const act = useOrgMutation(
    async (what: 'pause' | 'resume') =>
      what === 'pause'
        ? must(await api.POST('/api/v1/invoices/recurring/{id}/pause', { params: { path: { id } }, body: {} }))
        : must(await api.POST('/api/v1/invoices/recurring/{id}/resume', { params: { path: { id } }, body: {} })),
    ['recurring'],
  );
  const next = status === 'active' ? 'pause' : status === 'paused' ? 'resume' : null;
  return (
    <>
      <div className="row-actions">
        {next && (
          <button type="button" id={`${next}-schedule`} disabled={act.isPending} onClick={() => act.mutate(next)}>
            {t(`recurring.${next}`)}
          </button>
        )}
      </div>
      {act.isError && <ErrorNote error={act.error} />}
    </>
  );
}

function CancelSchedule({ id }: { id: string }) {
  const { t } = useI18n();
  return (
    <ConfirmAction
      id="cancel-schedule"
      prefix="cancel"
      title={t('recurring.cancel')}
      question={t('recurring.cancelConfirm')}
      reasonLabel={t('recurring.reason')}
      reasonHint={(left) => t('recurring.reasonHint', { left })}
      reasonMax={REASON_MAX}
      confirmLabel={t('recurring.cancelSubmit')}
      run={async (body) =>
        must(await api.POST('/api/v1/invoices/recurring/{id}/cancel', { params: { path: { id } }, body }))
      }
      refresh={['recurring']}
    />
  );
}

/** The next charges and the tax the engine estimates for each (invoice:execute). */
function Upcoming({ id, updatedAt }: { id: string; updatedAt: string }) {
  const { t, locale } = useI18n();
  const upcoming = useOrgQuery(['recurring', 'upcoming', id, updatedAt], async () =>
    must(await api.GET('/api/v1/invoices/recurring/{id}/upcoming', { params: { path: { id }, query: { count: 6 } } })),
  );
  return (
    <Section title={t('recurring.upcoming')} id="upcoming">
      <Loaded q={upcoming}>
        {(u) => (
          <DataTable
            testId="upcoming"
            rows={u.upcoming}
            rowKey={(c) => c.id}
            empty={t('recurring.noUpcoming')}
            columns={[
              { header: t('recurring.chargeDate'), cell: (c) => day(c.scheduledDate, locale) },
              { header: t('invoices.dueDate'), cell: (c) => day(c.dueDate, locale) },
              { header: t('invoices.net'), num: true, cell: (c) => money(c.baseAmount, c.currency, locale) },
              { header: t('recurring.taxEstimate'), num: true, cell: (c) => money(c.taxEstimate, c.currency, locale) },
              { header: t('invoices.gross'), num: true, cell: (c) => money(c.estimatedTotal, c.currency, locale) },
            ]}
          />
        )}
      </Loaded>
    </Section>
  );
}
