import { useState } from 'react';
import { api, must, mustOk, type components } from '../../api';
import { dateTime } from '../../format';
import { GridForm, SelectField, TextField, useFields, WriteButton } from '../../forms';
import { useI18n } from '../../i18n';
import { can } from '../../session';
import { ListTable } from '../../table';
import { ErrorNote, Section, useMember, useOrgMutation, useOrgQuery, useOrgTimeZone, useSites } from '../../ui';
import { SettingsPage } from './SettingsNav';

type Check = components['schemas']['CnameCheck'];

/** Custom checkout domains: their verification state; Admins add and remove them, Editors check them. */
export function Domains() {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const list = useOrgQuery(['domains'], async () =>
    must(await api.GET('/api/v1/domains', { params: { query: { limit: 100 } } })),
  );
  const sites = useSites();
  const [draft, set, setDraft] = useFields({ hostname: '', siteId: '' });
  const add = useOrgMutation(
    async () =>
      must(
        await api.POST('/api/v1/domains', {
          body: { hostname: draft.hostname.trim(), ...(draft.siteId ? { siteId: draft.siteId } : {}) },
        }),
      ),
    ['domains'],
    () => setDraft({ hostname: '', siteId: draft.siteId }),
  );
  const [check, setCheck] = useState<Check | null>(null);
  const verify = useOrgMutation(
    async (hostname: string) =>
      must(await api.GET('/api/v1/domains/verify-cname', { params: { query: { domain: hostname } } })),
    ['domains'],
    (c) => setCheck(c),
  );
  const remove = useOrgMutation(
    async (id: string) => mustOk(await api.DELETE('/api/v1/domains/{id}', { params: { path: { id } } })),
    ['domains'],
  );
  const siteName = (id: string | null) =>
    (id && sites.data?.items.find((s) => s.id === id)?.name) || t('domains.anySite');
  const when = (iso: string | null) => (iso ? dateTime(iso, zone, locale) : '—');
  const failed = verify.error ?? remove.error;
  return (
    <SettingsPage title={t('domains.title')}>
      <p className="muted">{t('domains.intro')}</p>
      <Section title={t('domains.title')} id="domains">
        {check && (
          <p role="status" className={`notice ${check.verified ? '' : 'warning'}`} data-testid="domain-check">
            {check.verified
              ? t('domains.checkOk', { host: check.hostname })
              : t('domains.checkFailed', {
                  host: check.hostname,
                  target: check.expectedCname,
                  reason: check.reason ?? '—',
                })}
          </p>
        )}
        {failed && <ErrorNote error={failed} />}
        <ListTable
          q={list}
          testId="domains"
          empty={t('domains.none')}
          columns={[
            { header: t('domains.hostname'), cell: (d) => <code>{d.hostname}</code> },
            { header: t('overview.site'), cell: (d) => siteName(d.siteId) },
            {
              header: t('domains.state'),
              cell: (d) => (
                <span className={`badge ${d.verified ? 'status-1' : 'status-0'}`}>
                  {d.verified ? t('domains.verified') : t('domains.unverified')}
                </span>
              ),
            },
            { header: t('domains.cname'), cell: (d) => <code>{d.cnameTarget}</code> },
            { header: t('domains.checked'), cell: (d) => when(d.verifiedAt ?? d.lastCheckedAt) },
            can(role, 'write') && {
              header: t('settings.actions'),
              srOnly: true,
              cell: (d) => (
                <span className="row-actions">
                  <WriteButton
                    write={verify}
                    input={d.hostname}
                    aria-label={t('domains.verifyHost', { host: d.hostname })}
                  >
                    {t('domains.verify')}
                  </WriteButton>
                  {can(role, 'admin') && (
                    <WriteButton write={remove} input={d.id} aria-label={t('domains.removeHost', { host: d.hostname })}>
                      {t('settings.remove')}
                    </WriteButton>
                  )}
                </span>
              ),
            },
          ]}
        />
      </Section>
      {can(role, 'admin') && (
        <Section title={t('domains.add')} id="add-domain">
          <GridForm label={t('domains.add')} submit={t('domains.addSubmit')} write={add}>
            <TextField
              id="domain-hostname"
              label={t('domains.hostname')}
              value={draft.hostname}
              required
              maxLength={253}
              plain
              placeholder="pay.shop.example"
              onChange={set('hostname')}
            />
            <SelectField
              id="domain-site"
              label={t('overview.site')}
              value={draft.siteId}
              options={[
                ['', t('domains.anySite')] as const,
                ...(sites.data?.items ?? []).map((s) => [s.id, s.name] as const),
              ]}
              onChange={set('siteId')}
            />
          </GridForm>
        </Section>
      )}
    </SettingsPage>
  );
}
