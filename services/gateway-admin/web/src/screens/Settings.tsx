import { useQueryClient } from '@tanstack/react-query';
import { api, must, mustOk, type components, type Role } from '../api';
import { dateTime } from '../format';
import { GridForm, SecondaryButton, SelectField, ShownOnce, TextField, useFields } from '../forms';
import { useHistoryPicker } from '../history';
import { useI18n } from '../i18n';
import { can, switchDataMode, type DataMode } from '../session';
import { DataTable } from '../table';
import { ErrorNote, Facts, Loaded, Section, useMember, useOrgMutation, useOrgQuery, useOrgTimeZone } from '../ui';
import { SettingsPage } from './settings/SettingsNav';

type Member = components['schemas']['Member'];

export const ROLES: Role[] = ['Viewer', 'Editor', 'Admin'];

/** The organization: its licence, the data the dashboard shows (live or test) and its members. */
export function Settings() {
  const { t } = useI18n();
  const { organization, role, mode } = useMember();
  const zone = useOrgTimeZone();
  const queries = useQueryClient();
  const license = useOrgQuery(['license'], async () => must(await api.GET('/api/v1/organizations/license')));
  return (
    <SettingsPage title={t('settings.title')}>
      <Section title={t('org.title')} id="organization">
        <Facts
          rows={[
            [t('settings.orgName'), organization.name],
            [t('settings.orgId'), <code>{organization.id}</code>],
            [t('settings.yourRole'), t(`role.${role}`)],
            [t('overview.timezone'), zone],
            [
              t('org.license'),
              <Loaded q={license}>
                {(l) => (
                  <span data-testid="license">
                    <span className={`badge ${l.licenseState === 'ACTIVE' ? 'status-1' : 'status-2'}`}>
                      {t(`license.${l.licenseState}`)}
                    </span>{' '}
                    <span className="muted">{t(l.licenseState === 'ACTIVE' ? 'license.open' : 'license.stopped')}</span>
                  </span>
                )}
              </Loaded>,
            ],
          ]}
        />
        <h3>{t('mode.title')}</h3>
        <p className="muted">{t('mode.intro')}</p>
        <SelectField<DataMode>
          id="data-mode"
          label={t('mode.label')}
          value={mode}
          options={[
            ['live', t('mode.live')],
            ['test', t('mode.test')],
          ]}
          onChange={(next) => {
            switchDataMode(next);
            // The same screens, other data: nothing cached from the other mode may show.
            void queries.resetQueries();
          }}
        />
      </Section>
      <Members />
    </SettingsPage>
  );
}

function Members() {
  const { t, locale } = useI18n();
  const { organization, role, user, mode } = useMember();
  const zone = useOrgTimeZone();
  const path = { params: { path: { orgId: organization.id } } };
  const list = useOrgQuery(['members'], async () => must(await api.GET('/api/v1/organizations/{orgId}/members', path)));
  const [invite, setInvite] = useFields({ email: '', name: '', role: 'Viewer' as Role });
  const add = useOrgMutation(
    async () => must(await api.POST('/api/v1/organizations/{orgId}/members', { ...path, body: invite })),
    ['members'],
  );
  const change = useOrgMutation(
    async (v: { userId: string; role: Role }) =>
      must(
        await api.PUT('/api/v1/organizations/{orgId}/members/{userId}', {
          params: { path: { orgId: organization.id, userId: v.userId } },
          body: { role: v.role },
        }),
      ),
    ['members'],
  );
  const remove = useOrgMutation(
    async (userId: string) =>
      mustOk(
        await api.DELETE('/api/v1/organizations/{orgId}/members/{userId}', {
          params: { path: { orgId: organization.id, userId } },
        }),
      ),
    ['members'],
  );
  // Who may use the dashboard is changed with live data only (the API's rule).
  const admin = can(role, 'admin') && mode === 'live';
  const link =
    add.data?.enrollmentToken &&
    `${location.origin}/app/enroll#${new URLSearchParams({ email: add.data.email, token: add.data.enrollmentToken }).toString()}`;
  const roles = ROLES.map((r) => [r, t(`role.${r}`)] as const);
  const failed = change.error ?? remove.error;
  const history = useHistoryPicker<Member>(
    'membership',
    (m) => m.membershipId,
    (m) => m.email,
  );
  return (
    <Section title={t('settings.members')} id="members">
      {failed && <ErrorNote error={failed} />}
      <Loaded q={list}>
        {(data) => (
          <DataTable
            rows={data.items}
            rowKey={(m) => m.userId}
            columns={[
              { header: t('signIn.email'), cell: (m) => m.email },
              { header: t('settings.name'), cell: (m) => m.name || '—' },
              {
                header: t('settings.role'),
                cell: (m) =>
                  admin && m.userId !== user.id ? (
                    <select
                      aria-label={t('settings.roleOf', { email: m.email })}
                      value={m.role}
                      onChange={(e) => {
                        const next = ROLES.find((r) => r === e.target.value);
                        if (next) change.mutate({ userId: m.userId, role: next });
                      }}
                    >
                      {roles.map(([r, text]) => (
                        <option key={r} value={r}>
                          {text}
                        </option>
                      ))}
                    </select>
                  ) : (
                    t(`role.${m.role}`)
                  ),
              },
              { header: t('settings.since'), cell: (m) => dateTime(m.createdAt, zone, locale) },
              admin && {
                header: t('settings.remove'),
                srOnly: true,
                cell: (m) =>
                  m.userId !== user.id && (
                    <SecondaryButton
                      aria-label={t('settings.removeMember', { email: m.email })}
                      onClick={() => remove.mutate(m.userId)}
                    >
                      {t('settings.remove')}
                    </SecondaryButton>
                  ),
              },
              history.column,
            ]}
          />
        )}
      </Loaded>
      {history.panel}
      {can(role, 'admin') && mode === 'test' && <p className="muted">{t('mode.membersLive')}</p>}
      {admin && (
        <>
          <h3>{t('settings.invite')}</h3>
          <GridForm label={t('settings.invite')} submit={t('settings.inviteSubmit')} write={add}>
            <TextField
              id="inv-email"
              type="email"
              label={t('signIn.email')}
              required
              value={invite.email}
              onChange={setInvite('email')}
            />
            <TextField id="inv-name" label={t('settings.name')} value={invite.name} onChange={setInvite('name')} />
            <SelectField
              id="inv-role"
              label={t('settings.role')}
              value={invite.role}
              options={roles}
              onChange={setInvite('role')}
            />
          </GridForm>
          {link && <ShownOnce message={t('settings.inviteLink')} value={link} testId="enrollment-link" />}
        </>
      )}
    </Section>
  );
}
