import { useNavigate } from '@tanstack/react-router';
import { api, must } from '../api';
import { DateRangeFields, FilterSelect, SearchField, SiteFilter } from '../forms';
import { useI18n } from '../i18n';
import { FilterForm, onlySet, PagedTable, usePagedList } from '../list';
import { paymentColumns } from '../payment-columns';
import type { PaymentsSearch } from '../search';
import { useOrgQuery, useOrgTimeZone } from '../ui';

const STATUSES = [1, 0, -1, 2, -2, 3, 4] as const;

export function Payments({ search }: { search: PaymentsSearch }) {
  const { t, locale } = useI18n();
  const zone = useOrgTimeZone();
  const navigate = useNavigate();
  const providers = useOrgQuery(['providers'], async () => must(await api.GET('/api/v1/providers')));
  const list = usePagedList({
    key: ['transactions'],
    search,
    go: (next: PaymentsSearch) => void navigate({ to: '/payments', search: next }),
    read: async (page, limit) =>
      must(
        await api.GET('/api/v1/transactions', {
          params: {
            query: {
              page,
              limit,
              ...onlySet({
                statuses: search.status?.toString(),
                siteIds: search.siteId,
                providerIds: search.providerId,
                startDate: search.startDate,
                endDate: search.endDate,
              }),
              ...(search.q ? (search.q.includes('@') ? { email: search.q } : { externalReference: search.q }) : {}),
            },
          },
        }),
      ),
  });
  const { draft, setDraft } = list;
  const payment = paymentColumns(t, locale, zone);
  return (
    <>
      <h1>{t('payments.title')}</h1>
      <FilterForm onApply={list.apply}>
        <SearchField
          id="f-q"
          label={t('payments.search')}
          value={draft.q ?? ''}
          placeholder={t('payments.searchHint')}
          onChange={(q) => setDraft({ ...draft, q: q || undefined })}
        />
        <FilterSelect
          id="f-status"
          label={t('payments.status')}
          anyLabel={t('payments.anyStatus')}
          value={draft.status}
          options={STATUSES.map((s): readonly [number, string] => [s, t(`status.${s}`)])}
          onChange={(status) => setDraft({ ...draft, status })}
        />
        <SiteFilter id="f-site" value={draft.siteId} onChange={(siteId) => setDraft({ ...draft, siteId })} />
        <FilterSelect
          id="f-provider"
          label={t('payments.provider')}
          anyLabel={t('payments.anyProvider')}
          value={draft.providerId}
          options={providers.data?.items.map((p): readonly [string, string] => [p.id, `${p.name} (${p.type})`])}
          onChange={(providerId) => setDraft({ ...draft, providerId })}
        />
        <DateRangeFields idPrefix="f" value={draft} onChange={(range) => setDraft({ ...draft, ...range })} />
      </FilterForm>
      <PagedTable
        {...list.paging}
        pager={{ of: 'payments', testId: 'payments-page' }}
        retry
        testId="transactions"
        empty={t('payments.empty')}
        columns={[
          payment.created,
          payment.reference,
          { header: t('payments.email'), cell: (tx) => tx.email ?? '—' },
          { header: t('payments.provider'), cell: (tx) => tx.providerType ?? '—' },
          payment.status,
          payment.amount,
        ]}
      />
    </>
  );
}
