import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { api, must } from '../api';
import { DateRangeFields } from '../forms';
import { count, dateTime, money } from '../format';
import { useI18n } from '../i18n';
import type { PaymentsSearch } from '../search';
import { ErrorNote, Loading, StatusBadge, useMember, useOrgTimeZone, useSites } from '../ui';

const PAGE_SIZE = 20;
const STATUSES = [1, 0, -1, 2, -2, 3, 4] as const;

export function Payments({ search }: { search: PaymentsSearch }) {
  const { t, locale } = useI18n();
  const { organization } = useMember();
  const zone = useOrgTimeZone();
  const navigate = useNavigate();
  const page = search.page ?? 1;
  const [draft, setDraft] = useState<PaymentsSearch>(search);

  const sites = useSites();
  const providers = useQuery({
    queryKey: [organization.id, 'providers'],
    queryFn: async () => must(await api.GET('/api/v1/providers')),
  });
  const list = useQuery({
    queryKey: [organization.id, 'transactions', search],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      must(
        await api.GET('/api/v1/transactions', {
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              ...(search.status !== undefined ? { statuses: String(search.status) } : {}),
              ...(search.siteId ? { siteIds: search.siteId } : {}),
              ...(search.providerId ? { providerIds: search.providerId } : {}),
              ...(search.startDate ? { startDate: search.startDate } : {}),
              ...(search.endDate ? { endDate: search.endDate } : {}),
              ...(search.q ? (search.q.includes('@') ? { email: search.q } : { externalReference: search.q }) : {}),
            },
          },
        }),
      ),
  });
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / PAGE_SIZE)) : 1;
  // Past 10,000 matches the API stops counting: its total is a lower bound ("more than ...").
  const pageLabel = list.data?.totalIsLowerBound
    ? t('payments.pageOfMore', {
        page,
        pages: count(Math.floor((list.data.total - 1) / PAGE_SIZE), locale),
        total: count(list.data.total - 1, locale),
      })
    : t('payments.page', { page, pages, total: list.data?.total ?? 0 });
  const go = (next: PaymentsSearch) => void navigate({ to: '/payments', search: next });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    go({ ...draft, page: undefined });
  };
  return (
    <>
      <h1>{t('payments.title')}</h1>
      <form className="filters" onSubmit={apply} aria-label={t('overview.filters')}>
        <div>
          <label htmlFor="f-q">{t('payments.search')}</label>
          <input
            id="f-q"
            type="search"
            value={draft.q ?? ''}
            placeholder={t('payments.searchHint')}
            onChange={(e) => setDraft({ ...draft, q: e.target.value || undefined })}
          />
        </div>
        <div>
          <label htmlFor="f-status">{t('payments.status')}</label>
          <select
            id="f-status"
            value={draft.status ?? ''}
            onChange={(e) => setDraft({ ...draft, status: e.target.value === '' ? undefined : Number(e.target.value) })}
          >
            <option value="">{t('payments.anyStatus')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`status.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-site">{t('overview.site')}</label>
          <select
            id="f-site"
            value={draft.siteId ?? ''}
            onChange={(e) => setDraft({ ...draft, siteId: e.target.value || undefined })}
          >
            <option value="">{t('overview.allSites')}</option>
            {sites.data?.items.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-provider">{t('payments.provider')}</label>
          <select
            id="f-provider"
            value={draft.providerId ?? ''}
            onChange={(e) => setDraft({ ...draft, providerId: e.target.value || undefined })}
          >
            <option value="">{t('payments.anyProvider')}</option>
            {providers.data?.items.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.type})
              </option>
            ))}
          </select>
        </div>
        <DateRangeFields idPrefix="f" value={draft} onChange={(range) => setDraft({ ...draft, ...range })} />
        <div className="actions">
          <button type="submit">{t('payments.apply')}</button>
        </div>
      </form>
      {list.isPending && <Loading />}
      {list.isError && <ErrorNote error={list.error} retry={() => void list.refetch()} />}
      {list.data && (
        <>
          {list.data.items.length === 0 ? (
            <p className="muted">{t('payments.empty')}</p>
          ) : (
            <div className="table-wrap">
              <table data-testid="transactions">
                <thead>
                  <tr>
                    <th scope="col">{t('payments.created')}</th>
                    <th scope="col">{t('payments.reference')}</th>
                    <th scope="col">{t('payments.email')}</th>
                    <th scope="col">{t('payments.provider')}</th>
                    <th scope="col">{t('payments.status')}</th>
                    <th scope="col" className="num">
                      {t('payments.amount')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.items.map((tx) => (
                    <tr key={tx.id}>
                      <td>
                        <Link to="/payments/$id" params={{ id: tx.id }}>
                          {dateTime(tx.createdAt, zone, locale)}
                        </Link>
                      </td>
                      <td>{tx.externalReference ?? '—'}</td>
                      <td>{tx.email ?? '—'}</td>
                      <td>{tx.providerType ?? '—'}</td>
                      <td>
                        <StatusBadge status={tx.status} />
                      </td>
                      <td className="num">{money(tx.amount, tx.currency, locale)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <nav className="pager" aria-label={pageLabel}>
            <button
              type="button"
              className="secondary"
              disabled={page <= 1}
              onClick={() => go({ ...search, page: page - 1 })}
            >
              {t('payments.previous')}
            </button>
            <span data-testid="payments-page">{pageLabel}</span>
            <button
              type="button"
              className="secondary"
              disabled={page >= pages}
              onClick={() => go({ ...search, page: page + 1 })}
            >
              {t('payments.next')}
            </button>
          </nav>
        </>
      )}
    </>
  );
}
