import { useState, type FormEvent, type ReactNode } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { count } from './format';
import { useI18n } from './i18n';
import { withRecordLink, type RecordLink } from './record-link';
import { DataTable, type Column } from './table';
import { Loaded, useMember } from './ui';

/** Rows a page of a server-paged list holds. */
export const PAGE_SIZE = 20;

/**
 * A list the server pages, its filters and page kept in the address (`go` writes them there): the
 * read of the page in view under [organization, ...key, search] (the page before stays shown while
 * the next loads), the filters the form edits until they are applied (from page one), and the
 * pager's wiring for {@link PagedTable}.
 */
export function usePagedList<S extends { page?: number | undefined }, T>({
  key,
  search,
  go,
  read,
}: {
  key: readonly unknown[];
  search: S;
  go: (next: S) => void;
  read: (page: number, limit: number) => Promise<T>;
}) {
  const { organization } = useMember();
  const page = search.page ?? 1;
  const [draft, setDraft] = useState<S>(search);
  const q = useQuery({
    queryKey: [organization.id, ...key, search],
    placeholderData: keepPreviousData,
    queryFn: () => read(page, PAGE_SIZE),
  });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    go({ ...draft, page: undefined });
  };
  return {
    q,
    draft,
    setDraft,
    apply,
    paging: { q, page, limit: PAGE_SIZE, onPage: (p: number) => go({ ...search, page: p }) },
  };
}

type Filter = string | number | undefined;

/**
 * The filters that are set, as a list read's query takes them: a filter left out (undefined) or
 * emptied ('') is not sent; a number is sent even when it is 0.
 */
export function onlySet<F extends Record<string, Filter>>(filters: F): { [K in keyof F]?: NonNullable<F[K]> } {
  const set: { [K in keyof F]?: NonNullable<F[K]> } = {};
  for (const key of Object.keys(filters) as Array<keyof F>) {
    const value = filters[key];
    if (value !== undefined && value !== '') set[key] = value;
  }
  return set;
}

/** The filters of a list, applied by their submit button. */
export function FilterForm({ onApply, children }: { onApply: (e: FormEvent) => void; children: ReactNode }) {
  const { t } = useI18n();
  return (
    <form className="filters" onSubmit={onApply} aria-label={t('overview.filters')}>
      {children}
      <div className="actions">
        <button type="submit">{t('payments.apply')}</button>
      </div>
    </form>
  );
}

/** Previous / next buttons of a server-side paged list with "page x of y": the one pager of every list the server pages. */
export function Pager({
  page,
  limit,
  total,
  lowerBound,
  onPage,
  of = 'invoices',
  testId,
  label,
}: {
  page: number;
  limit: number;
  total: number;
  /** The API stopped counting (`totalIsLowerBound`): there are more than `total - 1` and a next page. */
  lowerBound?: boolean | undefined;
  onPage: (page: number) => void;
  /** What the total counts: entries of any kind ("in all"), or transactions. */
  of?: 'invoices' | 'payments';
  /** The test id of "page x of y". */
  testId?: string | undefined;
  /** The pager's name, where a screen has more than one list (default: "page x of y"). */
  label?: string | undefined;
}) {
  const { t, locale } = useI18n();
  const pages = Math.max(1, Math.ceil(total / limit));
  const text = lowerBound
    ? t(`${of}.pageOfMore`, {
        page: count(page, locale),
        pages: count(Math.floor((total - 1) / limit), locale),
        total: total - 1,
      })
    : t(`${of}.page`, { page: count(page, locale), pages: count(pages, locale), total });
  return (
    <nav className="pager" aria-label={label ?? text}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('payments.previous')}
      </button>
      <span data-testid={testId}>{text}</span>
      <button type="button" className="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('payments.next')}
      </button>
    </nav>
  );
}

export interface PagedTableProps<T> {
  q: {
    data?: { items: T[]; total: number; totalIsLowerBound?: boolean | undefined } | undefined;
    error: unknown;
    isPending: boolean;
    isError: boolean;
    refetch: () => unknown;
  };
  page: number;
  limit: number;
  onPage: (page: number) => void;
  columns: ReadonlyArray<Column<T> | false>;
  /** The first column: each row's link to its own screen. */
  recordLink?: RecordLink<T>;
  testId: string;
  caption?: string;
  empty: string;
  /** The pager's wording, test id and name (an invoicing list's wording by default). */
  pager?: { of?: 'invoices' | 'payments'; testId?: string; label?: string };
  /** A failed read offers to try again. */
  retry?: boolean;
}

/** One page of a list the server pages, with its pager. */
export function PagedTable<T extends { id: string }>({
  q,
  page,
  limit,
  onPage,
  pager,
  retry,
  recordLink,
  columns,
  ...table
}: PagedTableProps<T>) {
  return (
    <Loaded q={q} retry={retry ? () => void q.refetch() : undefined}>
      {(data) => (
        <>
          <DataTable rows={data.items} rowKey={(r) => r.id} columns={withRecordLink(recordLink, columns)} {...table} />
          <Pager
            page={page}
            limit={limit}
            total={data.total}
            lowerBound={data.totalIsLowerBound}
            onPage={onPage}
            {...pager}
          />
        </>
      )}
    </Loaded>
  );
}
