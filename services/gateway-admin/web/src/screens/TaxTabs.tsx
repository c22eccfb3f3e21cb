import { SubNav } from '../layout';
import { count } from '../format';
import { useI18n } from '../i18n';
import { DataTable, type Column } from '../table';
import { Loaded } from '../ui';

/** The links between the tax screens: settings with rates and rules, reports, records. */
export function TaxTabs() {
  const { t } = useI18n();
  return (
    <SubNav
      label={t('tax.sections')}
      links={[
        { to: '/tax', label: t('tax.settingsTab'), exact: true },
        { to: '/tax/reports', label: t('tax.reportsTab') },
        { to: '/tax/records', label: t('tax.recordsTab') },
      ]}
    />
  );
}

/** Previous / next page of a list paged on the server, with where the reader is. */
function Pager({
  page,
  limit,
  total,
  onPage,
  label,
}: {
  page: number;
  limit: number;
  total: number;
  onPage: (page: number) => void;
  label: string;
}) {
  const { t, locale } = useI18n();
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('tax.previous')}
      </button>{' '}
      <span>
        {t('tax.pageOf', { page: count(page, locale), pages: count(pages, locale), total: count(total, locale) })}
      </span>{' '}
      <button type="button" className="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('tax.next')}
      </button>
    </nav>
  );
}

/** One page of a tax list the server pages (its rows keyed by their id), with its pager named `pagerLabel`. */
export function TaxPagedTable<T extends { id: string }>({
  q,
  page,
  limit,
  onPage,
  pagerLabel,
  ...table
}: {
  q: { data?: { items: T[]; total: number } | undefined; error: unknown; isPending: boolean; isError: boolean };
  page: number;
  limit: number;
  onPage: (page: number) => void;
  pagerLabel: string;
  columns: ReadonlyArray<Column<T> | false>;
  testId: string;
  caption: string;
  empty: string;
}) {
  return (
    <Loaded q={q}>
      {(data) => (
        <>
          <DataTable rows={data.items} rowKey={(r) => r.id} {...table} />
          <Pager page={page} limit={limit} total={data.total} onPage={onPage} label={pagerLabel} />
        </>
      )}
    </Loaded>
  );
}
