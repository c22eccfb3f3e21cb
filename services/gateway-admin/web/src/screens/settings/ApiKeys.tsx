import { useState } from 'react';
import { api, must, type components, type Role } from '../../api';
import { dateTime } from '../../format';
import { Check, GridForm, SecondaryButton, SelectField, ShownOnce, TextField, useFields } from '../../forms';
import { useI18n } from '../../i18n';
import { can, type DataMode } from '../../session';
import { ListTable } from '../../table';
import { ErrorNote, Section, useMember, useOrgMutation, useOrgQuery, useOrgTimeZone } from '../../ui';
import { SCOPE_FAMILIES } from '../../../../../../libs/contracts/src/scopes';
import { ROLES } from '../Settings';
import { SettingsPage } from './SettingsNav';
import { useHistoryPicker } from '../../history';

type ApiKey = components['schemas']['ApiKey'];
type Scope = ApiKey['scopes'][number];

/**
 * The organization scopes, family by family: the families gateway-admin enforces, less `system`
 * (system keys only). The API's enum checks them: a scope it drops or renames fails the type
 * check below.
 */
const { system: _system, ...FAMILIES } = SCOPE_FAMILIES;
type FamilyScope = { [F in keyof typeof FAMILIES]: `${F}:${(typeof FAMILIES)[F][number]}` }[keyof typeof FAMILIES];
const FAMILY_SCOPES: FamilyScope[] = Object.entries(FAMILIES).flatMap(([f, actions]) =>
  actions.map((a) => `${f}:${a}` as FamilyScope),
);
/** Every scope above must be one the API accepts (assignment checks it). */
const ALL: Scope[] = FAMILY_SCOPES;
const READ_ONLY: Scope[] = ALL.filter((s) => s.endsWith(':read'));
/** Expiry choices, in days (0 = never). */
const EXPIRY = ['0', '30', '90', '365'] as const;
type Expiry = (typeof EXPIRY)[number];

function ScopePicker({ value, onChange }: { value: ReadonlySet<Scope>; onChange: (next: Set<Scope>) => void }) {
  const { t } = useI18n();
  const flip = (s: Scope) => {
    const next = new Set(value);
    if (next.has(s)) next.delete(s);
    else next.add(s);
    onChange(next);
  };
  return (
    <fieldset className="scopes wide">
      <legend>{t('keys.scopes', { n: value.size })}</legend>
      <p className="row-actions">
        <button type="button" className="secondary" onClick={() => onChange(new Set(ALL))}>
          {t('keys.scopesAll')}
        </button>
        <button type="button" className="secondary" onClick={() => onChange(new Set(READ_ONLY))}>
          {t('keys.scopesRead')}
        </button>
        <button type="button" className="secondary" onClick={() => onChange(new Set())}>
          {t('keys.scopesNone')}
        </button>
      </p>
      <div className="scope-grid">
        {Object.entries(FAMILIES).map(([family, actions]) => (
          <fieldset key={family}>
            <legend>{family}</legend>
            {actions.map((action) => {
              const scope = ALL.find((s) => s === `${family}:${action}`);
              if (!scope) return null;
              const id = `scope-${family}-${action}`;
              return (
                <Check key={action} id={id} label={action} checked={value.has(scope)} onChange={() => flip(scope)} />
              );
            })}
          </fieldset>
        ))}
      </div>
    </fieldset>
  );
}

export function ApiKeys() {
  const { t } = useI18n();
  const { role } = useMember();
  if (!can(role, 'admin'))
    return (
      <SettingsPage title={t('settings.apiKeys')}>
        <p className="notice">{t('keys.adminOnly')}</p>
      </SettingsPage>
    );
  return <ManageKeys />;
}

function ManageKeys() {
  const { t, locale } = useI18n();
  const { organization, role, mode } = useMember();
  const zone = useOrgTimeZone();
  const path = { params: { path: { orgId: organization.id } } };
  const list = useOrgQuery(['api-keys'], async () =>
    must(await api.GET('/api/v1/organizations/{orgId}/api-keys', path)),
  );
  const [form, set] = useFields({
    name: '',
    role: 'Editor' as Role,
    mode: mode as DataMode,
    expiry: '0' as Expiry,
    scopes: new Set<Scope>(ALL),
  });
  /** The new secret: shown once, gone when the screen is left. */
  const [secret, setSecret] = useState<string | null>(null);
  const shown = (k: object) => setSecret('token' in k && typeof k.token === 'string' ? k.token : null);
  const create = useOrgMutation(
    async () => {
      const days = Number(form.expiry);
      return must(
        await api.POST('/api/v1/organizations/{orgId}/api-keys', {
          ...path,
          body: {
            name: form.name,
            scopes: ALL.filter((s) => form.scopes.has(s)),
            role: form.role,
            mode: form.mode,
            ...(days > 0 ? { expiresAt: new Date(Date.now() + days * 86_400_000).toISOString() } : {}),
          },
        }),
      );
    },
    ['api-keys'],
    shown,
  );
  const keyAction = (action: 'revoke' | 'rotate') => async (id: string) =>
    must(
      await api.POST(`/api/v1/organizations/{orgId}/api-keys/{id}/${action}`, {
        params: { path: { orgId: organization.id, id } },
      }),
    );
  const revoke = useOrgMutation(keyAction('revoke'), ['api-keys']);
  const rotate = useOrgMutation(keyAction('rotate'), ['api-keys'], shown);
  const failed = revoke.error ?? rotate.error;
  const history = useHistoryPicker<ApiKey>(
    'api_key',
    (k) => k.id,
    (k) => k.name,
  );
  const roles = ROLES.filter((r) => r !== 'Admin' || role === 'Admin').map((r) => [r, t(`role.${r}`)] as const);
  return (
    <SettingsPage title={t('settings.apiKeys')}>
      <Section title={t('keys.create')} id="api-keys">
        <GridForm label={t('keys.create')} submit={t('settings.createKey')} write={create}>
          <TextField
            id="key-name"
            label={t('settings.name')}
            required
            maxLength={200}
            value={form.name}
            onChange={set('name')}
          />
          <SelectField
            id="key-role"
            label={t('settings.role')}
            value={form.role}
            options={roles}
            onChange={set('role')}
          />
          <SelectField<DataMode>
            id="key-mode"
            label={t('mode.label')}
            value={form.mode}
            options={
              mode === 'test'
                ? [['test', t('mode.test')]]
                : [
                    ['live', t('mode.live')],
                    ['test', t('mode.test')],
                  ]
            }
            onChange={set('mode')}
          />
          <SelectField<Expiry>
            id="key-expiry"
            label={t('keys.expiry')}
            value={form.expiry}
            options={EXPIRY.map((d) => [d, d === '0' ? t('keys.never') : t('keys.days', { n: Number(d) })] as const)}
            onChange={set('expiry')}
          />
          <ScopePicker value={form.scopes} onChange={set('scopes')} />
        </GridForm>
        {secret && <ShownOnce message={t('settings.secretOnce')} value={secret} testId="api-key-secret" />}
      </Section>
      <Section title={t('settings.apiKeys')} id="key-list">
        {failed && <ErrorNote error={failed} />}
        <ListTable
          q={list}
          testId="api-keys"
          columns={[
            { header: t('settings.name'), cell: (k) => k.name },
            { header: t('settings.keyId'), cell: (k) => <code>{k.prefix}</code> },
            { header: t('settings.role'), cell: (k) => t(`role.${k.role}`) },
            { header: t('keys.scopeCount'), cell: (k) => String(k.scopes.length), num: true },
            { header: t('settings.keyStatus'), cell: (k) => t(`keys.status.${k.status}`) },
            {
              header: t('keys.expires'),
              cell: (k) => (k.expiresAt ? dateTime(k.expiresAt, zone, locale) : t('keys.never')),
            },
            {
              header: t('settings.lastUsed'),
              cell: (k) => (k.lastUsedAt ? dateTime(k.lastUsedAt, zone, locale) : '—'),
            },
            {
              header: t('settings.actions'),
              srOnly: true,
              cell: (k) =>
                k.status === 'active' && (
                  <span className="row-actions">
                    <SecondaryButton
                      aria-label={t('keys.rotateName', { name: k.name })}
                      onClick={() => rotate.mutate(k.id)}
                    >
                      {t('settings.rotate')}
                    </SecondaryButton>
                    <SecondaryButton
                      aria-label={t('keys.revokeName', { name: k.name })}
                      onClick={() => revoke.mutate(k.id)}
                    >
                      {t('settings.revoke')}
                    </SecondaryButton>
                  </span>
                ),
            },
            history.column,
          ]}
        />
      </Section>
      {history.panel}
    </SettingsPage>
  );
}
