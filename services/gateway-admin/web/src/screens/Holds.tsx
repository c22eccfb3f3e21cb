import { Link } from '@tanstack/react-router';
import { api, must } from '../api';
import { dateTime } from '../format';
import { useI18n } from '../i18n';
import { can } from '../session';
import { DataTable } from '../table';
import { ErrorNote, Loading, useMember, useOrgMutation, useOrgQuery, useOrgTimeZone } from '../ui';
import { WriteButton } from '../forms';

export function Holds() {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const list = useOrgQuery(['holds'], async () =>
    must(await api.GET('/api/v1/customer-holds', { params: { query: { limit: 50 } } })),
  );
  const lift = useOrgMutation(
    async (id: string) =>
      must(await api.POST('/api/v1/customer-holds/{id}/lift', { params: { path: { id } }, body: {} })),
    ['holds'],
  );
  return (
    <>
      <h1>{t('holds.title')}</h1>
      <p className="muted">{t('holds.intro')}</p>
      {list.isPending && <Loading />}
      {list.isError && <ErrorNote error={list.error} />}
      {lift.isError && <ErrorNote error={lift.error} />}
      {list.data && list.data.items.length === 0 && <p>{t('holds.empty')}</p>}
      {list.data && list.data.items.length > 0 && (
        <DataTable
          rows={list.data.items}
          rowKey={(h) => h.id}
          columns={[
            { header: t('payments.created'), cell: (h) => dateTime(h.createdAt, zone, locale) },
            { header: t('holds.buyer'), cell: (h) => h.buyer.emails.join(', ') || h.buyer.clientId || '—' },
            { header: t('holds.action'), cell: (h) => h.action },
            { header: t('holds.status'), cell: (h) => h.status },
            {
              header: t('holds.source'),
              cell: (h) => (
                <Link to="/payments/$id" params={{ id: h.source.transactionId }}>
                  {h.source.transactionId}
                </Link>
              ),
            },
            {
              header: t('holds.lift'),
              srOnly: true,
              cell: (h) =>
                h.status === 'active' &&
                can(role, 'admin') && (
                  <WriteButton write={lift} input={h.id}>
                    {t('holds.lift')}
                  </WriteButton>
                ),
            },
          ]}
        />
      )}
    </>
  );
}
