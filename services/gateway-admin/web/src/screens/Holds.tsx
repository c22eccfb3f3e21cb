import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, must } from '../api';
import { dateTime } from '../format';
import { useI18n } from '../i18n';
import { can } from '../session';
import { ErrorNote, Loading, useMember, useOrgTimeZone } from '../ui';

export function Holds() {
  const { t, locale } = useI18n();
  const { organization, role } = useMember();
  const zone = useOrgTimeZone();
  const queries = useQueryClient();
  const key = [organization.id, 'holds'];
  const list = useQuery({
    queryKey: key,
    queryFn: async () => must(await api.GET('/api/v1/customer-holds', { params: { query: { limit: 50 } } })),
  });
  const lift = useMutation({
    mutationFn: async (id: string) =>
      must(await api.POST('/api/v1/customer-holds/{id}/lift', { params: { path: { id } }, body: {} })),
    onSuccess: () => void queries.invalidateQueries({ queryKey: key }),
  });
  return (
    <>
      <h1>{t('holds.title')}</h1>
      <p className="muted">{t('holds.intro')}</p>
      {list.isPending && <Loading />}
      {list.isError && <ErrorNote error={list.error} />}
      {lift.isError && <ErrorNote error={lift.error} />}
      {list.data && list.data.items.length === 0 && <p>{t('holds.empty')}</p>}
      {list.data && list.data.items.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('payments.created')}</th>
                <th scope="col">{t('holds.buyer')}</th>
                <th scope="col">{t('holds.action')}</th>
                <th scope="col">{t('holds.status')}</th>
                <th scope="col">{t('holds.source')}</th>
                <th scope="col">
                  <span className="sr-only">{t('holds.lift')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((h) => (
                <tr key={h.id}>
                  <td>{dateTime(h.createdAt, zone, locale)}</td>
                  <td>{h.buyer.emails.join(', ') || h.buyer.clientId || '—'}</td>
                  <td>{h.action}</td>
                  <td>{h.status}</td>
                  <td>
                    <Link to="/payments/$id" params={{ id: h.source.transactionId }}>
                      {h.source.transactionId}
                    </Link>
                  </td>
                  <td>
                    {h.status === 'active' && can(role, 'admin') && (
                      <button
                        type="button"
                        className="secondary"
                        disabled={lift.isPending}
                        onClick={() => lift.mutate(h.id)}
                      >
                        {t('holds.lift')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
