import { useState, type FormEvent, type ReactNode } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useI18n } from './i18n';
import { useMember } from './ui';

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
