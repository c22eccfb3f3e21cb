import { useInfiniteQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, must } from '../api';
import { dateTime } from '../format';
import { useI18n } from '../i18n';
import { IntegrityCheck } from '../integrity';
import { can } from '../session';
import { ErrorNote, Loading, useMember, useOrgTimeZone } from '../ui';
import { SecondaryButton } from '../forms';

interface Filters {
  resource: string;
  id: string;
  actor: string;
}

/** A changed value as shown in the list: JSON, shortened. */
function shown(v: unknown): string {
  if (v === undefined) return '—';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
}

/** The audit trail (GET /audit-events) and the integrity check of issued documents; Admins only. */
export function Audit() {
  const { t, locale } = useI18n();
  const { organization, role } = useMember();
  const zone = useOrgTimeZone();
  const [filters, setFilters] = useState<Filters>({ resource: '', id: '', actor: '' });
  const list = useInfiniteQuery({
    queryKey: [organization.id, 'audit', filters],
    enabled: can(role, 'admin'),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      must(
        await api.GET('/api/v1/audit-events', {
          params: {
            query: {
              limit: 50,
              ...(filters.resource ? { resource: filters.resource } : {}),
              ...(filters.id ? { id: filters.id } : {}),
              ...(filters.actor ? { actor: filters.actor } : {}),
              ...(pageParam ? { cursor: pageParam } : {}),
            },
          },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  if (!can(role, 'admin')) return <p>{t('audit.adminOnly')}</p>;
  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const value = (name: string) => String(form.get(name) ?? '').trim();
    setFilters({ resource: value('resource'), id: value('id'), actor: value('actor') });
  };
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <h1>{t('audit.title')}</h1>
      <p className="muted">{t('audit.intro')}</p>
      <IntegrityCheck />
      <form className="filters" onSubmit={apply} aria-label={t('audit.filters')}>
        <label>
          {t('audit.resource')}
          <input name="resource" defaultValue={filters.resource} placeholder="invoice" />
        </label>
        <label>
          {t('audit.resourceId')}
          <input name="id" defaultValue={filters.id} />
        </label>
        <label>
          {t('audit.actor')}
          <input name="actor" defaultValue={filters.actor} placeholder="api_key:…" />
        </label>
        <button type="submit">{t('payments.apply')}</button>
      </form>
      {list.isPending && <Loading />}
      {list.isError && <ErrorNote error={list.error} />}
      {list.data && items.length === 0 && <p>{t('audit.empty')}</p>}
      {items.length > 0 && (
        // Wide rows scroll sideways: the region takes keyboard focus to scroll.
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('audit.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('audit.when')}</th>
                <th scope="col">{t('audit.who')}</th>
                <th scope="col">{t('audit.operation')}</th>
                <th scope="col">{t('audit.resource')}</th>
                <th scope="col">{t('audit.changes')}</th>
                <th scope="col">{t('audit.requestId')}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((e) => (
                <tr key={e.id}>
                  <td>{dateTime(e.at, zone, locale)}</td>
                  <td>
                    {e.actor.type}: {e.actor.name ?? e.actor.id}
                    {e.initiator && (
                      <span className="muted">
                        {' '}
                        ({t('audit.causedBy', { who: e.initiator.name ?? e.initiator.id })})
                      </span>
                    )}
                  </td>
                  <td>
                    {e.operation} ({e.action})
                  </td>
                  <td>
                    {e.resourceType} {e.resourceId}
                  </td>
                  <td>
                    <ul className="changes">
                      {e.changes.slice(0, 6).map((c) => (
                        <li key={c.path}>
                          {c.path}: {shown(c.before)} → {shown(c.after)}
                        </li>
                      ))}
                      {e.changes.length > 6 && <li>{t('audit.more', { count: e.changes.length - 6 })}</li>}
                    </ul>
                  </td>
                  <td>
                    <code>{e.requestId}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.hasNextPage && (
        <SecondaryButton disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
          {t('audit.loadMore')}
        </SecondaryButton>
      )}
    </>
  );
}
