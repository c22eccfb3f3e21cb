import { useState, type ReactNode } from 'react';
import { Link } from '@tanstack/react-router';
import { api, must } from './api';
import { dateTime } from './format';
import { useI18n } from './i18n';
import { can } from './session';
import type { Column } from './table';
import { Loaded, Section, useMember, useOrgQuery, useOrgTimeZone } from './ui';
import { SecondaryButton } from './forms';

/** How many changes a resource's history shows (the Audit trail screen pages further). */
const HISTORY_LIMIT = 20;
/** Changed fields named per event (the audit trail shows them all, with their values). */
const FIELDS_SHOWN = 8;

/**
 * A resource's history on its own page: the latest audit events of that resource and id (who,
 * when, operation, changed fields), newest first. Admins only, as the audit trail.
 */
export function ResourceHistory({ resource, id, title }: { resource: string; id: string; title?: string }) {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const admin = can(role, 'admin');
  const list = useOrgQuery(['audit', 'history', resource, id], async () =>
    admin
      ? must(await api.GET('/api/v1/audit-events', { params: { query: { resource, id, limit: HISTORY_LIMIT } } }))
      : { items: [], nextCursor: null },
  );
  if (!admin) return null;
  return (
    <Section title={title ?? t('history.title')} id={`history-${resource}`}>
      <Loaded q={list}>
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">{t('history.empty')}</p>
          ) : (
            <ol className="history" data-testid={`history-${resource}`}>
              {data.items.map((e) => (
                <li key={e.id}>
                  <time dateTime={e.at}>{dateTime(e.at, zone, locale)}</time> · <strong>{e.operation}</strong> ·{' '}
                  {e.actor.name ?? `${e.actor.type}:${e.actor.id}`}
                  {e.initiator && (
                    <span className="muted"> ({t('audit.causedBy', { who: e.initiator.name ?? e.initiator.id })})</span>
                  )}
                  {e.action === 'create' ? (
                    <span className="muted"> · {t('history.created')}</span>
                  ) : (
                    e.changes.length > 0 && (
                      <span className="muted">
                        {' '}
                        ·{' '}
                        {t('history.fields', {
                          fields: e.changes
                            .slice(0, FIELDS_SHOWN)
                            .map((c) => c.path)
                            .join(', '),
                        })}
                        {e.changes.length > FIELDS_SHOWN &&
                          ` ${t('audit.more', { count: e.changes.length - FIELDS_SHOWN })}`}
                      </span>
                    )
                  )}
                </li>
              ))}
            </ol>
          )
        }
      </Loaded>
      {list.data?.nextCursor && (
        <p>
          <Link to="/audit">{t('history.more')}</Link>
        </p>
      )}
    </Section>
  );
}

/**
 * For a list of one kind of resource (API keys, providers, members): a "History" button per row
 * (Admins) and the history of the row picked, shown under the list.
 */
export function useHistoryPicker<T>(
  resource: string,
  idOf: (row: T) => string,
  nameOf: (row: T) => string,
): { column: Column<T> | false; panel: ReactNode } {
  const { t } = useI18n();
  const { role } = useMember();
  const [picked, setPicked] = useState<{ id: string; name: string } | null>(null);
  if (!can(role, 'admin')) return { column: false, panel: null };
  return {
    column: {
      header: t('history.show'),
      srOnly: true,
      cell: (row) => (
        <SecondaryButton
          aria-label={t('history.showOf', { name: nameOf(row) })}
          aria-pressed={picked?.id === idOf(row)}
          onClick={() => setPicked({ id: idOf(row), name: nameOf(row) })}
        >
          {t('history.show')}
        </SecondaryButton>
      ),
    },
    panel: picked && (
      <ResourceHistory
        key={picked.id}
        resource={resource}
        id={picked.id}
        title={t('history.of', { name: picked.name })}
      />
    ),
  };
}
