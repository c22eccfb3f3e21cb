import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api, must } from './api';
import { isMessageKey, useI18n } from './i18n';
import { useSession } from './session';

/** The signed-in member's organization and role (screens render only inside the signed-in layout). */
export function useMember() {
  const s = useSession();
  if (s.status !== 'signedIn') throw new Error('screen rendered without a session');
  return {
    user: s.user,
    organization: s.organization,
    role: s.organization.role,
    organizations: s.organizations,
    mode: s.mode,
  };
}

/** The organization's time zone (its invoicing settings), in which dates are shown; UTC until known. */
export function useOrgTimeZone(): string {
  const { organization } = useMember();
  const q = useQuery({
    queryKey: [organization.id, 'settings', 'display'],
    // Readable by every member, Viewers included (the invoicing settings need organization:execute).
    queryFn: async () => must(await api.GET('/api/v1/organizations/settings/display')),
    staleTime: 5 * 60_000,
  });
  return q.data?.timeZone ?? 'UTC';
}

/** A read of the signed-in organization, cached under [organization, ...key]. */
export function useOrgQuery<T>(key: readonly unknown[], fn: () => Promise<T>) {
  const { organization } = useMember();
  return useQuery({ queryKey: [organization.id, ...key], queryFn: fn });
}

/** The organization's sites (up to 100), shared by the screens that name or filter by them. */
export function useSites() {
  return useOrgQuery(['sites'], async () =>
    must(await api.GET('/api/v1/sites', { params: { query: { limit: 100 } } })),
  );
}

/** A write that refreshes the organization's reads under `key` once it succeeded. */
export function useOrgMutation<V, R>(
  fn: (v: V) => Promise<R>,
  key: readonly unknown[],
  onSuccess?: (result: R, vars: V) => void,
) {
  const { organization } = useMember();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (result, vars) => {
      onSuccess?.(result, vars);
      void queries.invalidateQueries({ queryKey: [organization.id, ...key] });
    },
  });
}

/** A read answer: its loading line or error note, else the content (under the error note when a read again failed). */
export function Loaded<T>({
  q,
  children,
  retry,
}: {
  q: { data?: T | undefined; error: unknown; isPending: boolean; isError: boolean };
  children: (data: T) => ReactNode;
  /** Offered with the error note: read again. */
  retry?: (() => void) | undefined;
}) {
  if (q.isPending) return <Loading />;
  if (q.data === undefined) return <ErrorNote error={q.error} retry={retry} />;
  // A read again that failed keeps what the last one showed, under its error note.
  return (
    <>
      {q.isError && <ErrorNote error={q.error} retry={retry} />}
      {children(q.data)}
    </>
  );
}

export function Loading() {
  const { t } = useI18n();
  return (
    <p role="status" className="muted">
      {t('app.loading')}
    </p>
  );
}

export function ErrorNote({ error, retry }: { error: unknown; retry?: (() => void) | undefined }) {
  const { t } = useI18n();
  return (
    <div role="alert" className="notice error">
      <p>{t('app.error', { message: error instanceof Error ? error.message : String(error) })}</p>
      {retry && (
        <button type="button" className="secondary" onClick={retry}>
          {t('app.retry')}
        </button>
      )}
    </div>
  );
}

export function StatusBadge({ status }: { status: number }) {
  const { t } = useI18n();
  const key = `status.${status}`;
  return <span className={`badge status-${status}`}>{isMessageKey(key) ? t(key) : String(status)}</span>;
}

export function Section({ title, children, id }: { title: string; children: ReactNode; id?: string }) {
  const headingId = `${id ?? title.replace(/\W+/g, '-').toLowerCase()}-heading`;
  return (
    <section className="card" aria-labelledby={headingId} id={id}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/** A label/value list (definition list). */
export function Facts({ rows }: { rows: Array<[string, ReactNode]> }) {
  return (
    <dl className="facts">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
