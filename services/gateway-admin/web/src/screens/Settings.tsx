import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, must, mustOk, type components, type Role } from '../api';
import { dateTime } from '../format';
import { useI18n } from '../i18n';
import { can } from '../session';
import { ErrorNote, Facts, Loading, Section, useMember, useOrgTimeZone } from '../ui';

type Scope = components['schemas']['ApiKey']['scopes'][number];
const ROLES: Role[] = ['Viewer', 'Editor', 'Admin'];

/**
 * The organization scopes, family by family (the API's enum: a scope the API drops or renames
 * fails the type check here).
 */
const FAMILIES = {
  checkout: ['read', 'create', 'update'],
  transaction: ['read', 'create', 'update', 'delete', 'execute'],
  invoice: ['read', 'create', 'update', 'delete', 'execute'],
  credit_note: ['read', 'execute'],
  client: ['read', 'create', 'update', 'delete', 'execute'],
  site: ['read', 'create', 'update', 'delete'],
  provider: ['read', 'create', 'update', 'delete', 'execute'],
  domain: ['read', 'create', 'delete', 'execute'],
  api_key: ['read', 'create', 'update', 'delete', 'execute'],
  organization: ['read', 'update', 'execute'],
  tax_rule: ['read', 'create', 'update', 'delete'],
  tax_rate: ['read', 'create', 'update', 'delete', 'execute'],
  tax_report: ['read', 'execute'],
  tax_record: ['read', 'execute'],
  data_io: ['read', 'execute'],
  export: ['execute'],
  portal: ['create'],
  vies: ['read', 'execute'],
} as const;
type FamilyScope = { [F in keyof typeof FAMILIES]: `${F}:${(typeof FAMILIES)[F][number]}` }[keyof typeof FAMILIES];
const FAMILY_SCOPES: FamilyScope[] = Object.entries(FAMILIES).flatMap(([f, actions]) =>
  actions.map((a) => `${f}:${a}` as FamilyScope),
);
/** Every scope above must be one the API accepts (assignment checks it). */
const ALL: Scope[] = FAMILY_SCOPES;
const READ_ONLY: Scope[] = ALL.filter((s) => s.endsWith(':read'));

export function Settings() {
  const { t } = useI18n();
  const { organization, role } = useMember();
  const zone = useOrgTimeZone();
  return (
    <>
      <h1>{t('settings.title')}</h1>
      <Section title={t('org.title')} id="organization">
        <Facts
          rows={[
            [t('settings.orgName'), organization.name],
            [t('settings.orgId'), <code>{organization.id}</code>],
            [t('settings.yourRole'), t(`role.${role}`)],
            [t('overview.timezone'), zone],
          ]}
        />
      </Section>
      <Sites />
      <Providers />
      <Members />
      {can(role, 'admin') && <ApiKeys />}
    </>
  );
}

function Sites() {
  const { t } = useI18n();
  const { organization, role } = useMember();
  const queries = useQueryClient();
  const key = [organization.id, 'sites'];
  const list = useQuery({
    queryKey: key,
    queryFn: async () => must(await api.GET('/api/v1/sites', { params: { query: { limit: 100 } } })),
  });
  /** The new signing secret: shown once. */
  const [secret, setSecret] = useState<{ site: string; secret: string } | null>(null);
  const rotate = useMutation({
    mutationFn: async (id: string) =>
      must(await api.POST('/api/v1/sites/{id}/webhook-secret/regenerate', { params: { path: { id } } })),
    onSuccess: (site) => {
      setSecret(site.webhookSigningSecret ? { site: site.name, secret: site.webhookSigningSecret } : null);
      void queries.invalidateQueries({ queryKey: key });
    },
  });
  return (
    <Section title={t('settings.sites')} id="sites">
      {list.isPending && <Loading />}
      {list.isError && <ErrorNote error={list.error} />}
      {rotate.isError && <ErrorNote error={rotate.error} />}
      {secret && (
        <div role="status" className="notice warning">
          <p>{t('settings.secretRotated', { site: secret.site })}</p>
          <p>
            <code data-testid="signing-secret">{secret.secret}</code> <CopyButton text={secret.secret} />
          </p>
        </div>
      )}
      {list.data && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('settings.name')}</th>
                <th scope="col">URL</th>
                <th scope="col">{t('settings.domains')}</th>
                <th scope="col">{t('settings.signingSecret')}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((site) => (
                <tr key={site.id}>
                  <td>{site.name}</td>
                  <td>{site.url}</td>
                  <td>{site.frontendDomains.join(', ') || '—'}</td>
                  <td>
                    <code>{site.webhookSigningSecretHint}</code>{' '}
                    {can(role, 'write') && (
                      <button type="button" className="secondary" onClick={() => rotate.mutate(site.id)}>
                        {t('settings.rotateSecret')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

function Providers() {
  const { t } = useI18n();
  const { organization, role } = useMember();
  const queries = useQueryClient();
  const key = [organization.id, 'providers'];
  const list = useQuery({
    queryKey: key,
    queryFn: async () => must(await api.GET('/api/v1/providers')),
  });
  const toggle = useMutation({
    mutationFn: async (v: { id: string; enabled: boolean }) =>
      must(
        await api.PUT('/api/v1/providers/{id}/toggle', {
          params: { path: { id: v.id } },
          body: { enabled: v.enabled },
        }),
      ),
    onSuccess: () => void queries.invalidateQueries({ queryKey: key }),
  });
  return (
    <Section title={t('settings.providers')} id="providers">
      {list.isPending && <Loading />}
      {list.isError && <ErrorNote error={list.error} />}
      {toggle.isError && <ErrorNote error={toggle.error} />}
      {list.data && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('settings.name')}</th>
                <th scope="col">{t('payments.provider')}</th>
                <th scope="col">{t('settings.keyStatus')}</th>
                {can(role, 'admin') && (
                  <th scope="col">
                    <span className="sr-only">{t('settings.actions')}</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((p) => (
                <tr key={p.id}>
                  <td>{p.name}</td>
                  <td>{p.type}</td>
                  <td>{p.enabled ? t('settings.enabled') : t('settings.disabled')}</td>
                  {can(role, 'admin') && (
                    <td>
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => toggle.mutate({ id: p.id, enabled: !p.enabled })}
                      >
                        {p.enabled ? t('settings.disable') : t('settings.enable')}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

function Members() {
  const { t, locale } = useI18n();
  const { organization, role, user } = useMember();
  const zone = useOrgTimeZone();
  const queries = useQueryClient();
  const key = [organization.id, 'members'];
  const path = { params: { path: { orgId: organization.id } } };
  const list = useQuery({
    queryKey: key,
    queryFn: async () => must(await api.GET('/api/v1/organizations/{orgId}/members', path)),
  });
  const [invite, setInvite] = useState({ email: '', name: '', role: 'Viewer' as Role });
  const add = useMutation({
    mutationFn: async () => must(await api.POST('/api/v1/organizations/{orgId}/members', { ...path, body: invite })),
    onSuccess: () => void queries.invalidateQueries({ queryKey: key }),
  });
  const change = useMutation({
    mutationFn: async (v: { userId: string; role: Role }) =>
      must(
        await api.PUT('/api/v1/organizations/{orgId}/members/{userId}', {
          params: { path: { orgId: organization.id, userId: v.userId } },
          body: { role: v.role },
        }),
      ),
    onSuccess: () => void queries.invalidateQueries({ queryKey: key }),
  });
  const remove = useMutation({
    mutationFn: async (userId: string) =>
      mustOk(
        await api.DELETE('/api/v1/organizations/{orgId}/members/{userId}', {
          params: { path: { orgId: organization.id, userId } },
        }),
      ),
    onSuccess: () => void queries.invalidateQueries({ queryKey: key }),
  });
  const admin = can(role, 'admin');
  const link =
    add.data?.enrollmentToken &&
    `${location.origin}/app/enroll#${new URLSearchParams({ email: add.data.email, token: add.data.enrollmentToken }).toString()}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <Section title={t('settings.members')} id="members">
      {list.isPending && <Loading />}
      {list.isError && <ErrorNote error={list.error} />}
      {(change.isError || remove.isError) && <ErrorNote error={change.error ?? remove.error} />}
      {list.data && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('signIn.email')}</th>
                <th scope="col">{t('settings.name')}</th>
                <th scope="col">{t('settings.role')}</th>
                <th scope="col">{t('settings.since')}</th>
                {admin && (
                  <th scope="col">
                    <span className="sr-only">{t('settings.remove')}</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((m) => (
                <tr key={m.userId}>
                  <td>{m.email}</td>
                  <td>{m.name || '—'}</td>
                  <td>
                    {admin && m.userId !== user.id ? (
                      <select
                        aria-label={t('settings.roleOf', { email: m.email })}
                        value={m.role}
                        onChange={(e) => {
                          const next = ROLES.find((r) => r === e.target.value);
                          if (next) change.mutate({ userId: m.userId, role: next });
                        }}
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {t(`role.${r}`)}
                          </option>
                        ))}
                      </select>
                    ) : (
                      t(`role.${m.role}`)
                    )}
                  </td>
                  <td>{dateTime(m.createdAt, zone, locale)}</td>
                  {admin && (
                    <td>
                      {m.userId !== user.id && (
                        <button type="button" className="secondary" onClick={() => remove.mutate(m.userId)}>
                          {t('settings.remove')}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {admin && (
        <>
          <h3>{t('settings.invite')}</h3>
          <form className="grid-form" onSubmit={submit}>
            <div>
              <label htmlFor="inv-email">{t('signIn.email')}</label>
              <input
                id="inv-email"
                type="email"
                required
                value={invite.email}
                onChange={(e) => setInvite({ ...invite, email: e.target.value })}
              />
            </div>
            <div>
              <label htmlFor="inv-name">{t('settings.name')}</label>
              <input
                id="inv-name"
                value={invite.name}
                onChange={(e) => setInvite({ ...invite, name: e.target.value })}
              />
            </div>
            <div>
              <label htmlFor="inv-role">{t('settings.role')}</label>
              <select
                id="inv-role"
                value={invite.role}
                onChange={(e) => setInvite({ ...invite, role: ROLES.find((r) => r === e.target.value) ?? 'Viewer' })}
              >
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {t(`role.${r}`)}
                  </option>
                ))}
              </select>
            </div>
            <div className="actions">
              <button type="submit" disabled={add.isPending}>
                {t('settings.inviteSubmit')}
              </button>
            </div>
          </form>
          {add.isError && <ErrorNote error={add.error} />}
          {link && (
            <div role="status" className="notice">
              <p>{t('settings.inviteLink')}</p>
              <p>
                <code data-testid="enrollment-link">{link}</code> <CopyButton text={link} />
              </p>
            </div>
          )}
        </>
      )}
    </Section>
  );
}

function ApiKeys() {
  const { t, locale } = useI18n();
  const { organization } = useMember();
  const zone = useOrgTimeZone();
  const queries = useQueryClient();
  const key = [organization.id, 'api-keys'];
  const path = { params: { path: { orgId: organization.id } } };
  const list = useQuery({
    queryKey: key,
    queryFn: async () => must(await api.GET('/api/v1/organizations/{orgId}/api-keys', path)),
  });
  const [form, setForm] = useState({ name: '', access: 'full' as 'full' | 'read', role: 'Editor' as Role });
  /** The new secret: shown once, gone when the screen is left. */
  const [secret, setSecret] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async () =>
      must(
        await api.POST('/api/v1/organizations/{orgId}/api-keys', {
          ...path,
          body: { name: form.name, scopes: form.access === 'full' ? ALL : READ_ONLY, role: form.role },
        }),
      ),
    onSuccess: (k) => {
      setSecret(k.token ?? null);
      void queries.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: async (id: string) =>
      must(
        await api.POST('/api/v1/organizations/{orgId}/api-keys/{id}/revoke', {
          params: { path: { orgId: organization.id, id } },
        }),
      ),
    onSuccess: () => void queries.invalidateQueries({ queryKey: key }),
  });
  const rotate = useMutation({
    mutationFn: async (id: string) =>
      must(
        await api.POST('/api/v1/organizations/{orgId}/api-keys/{id}/rotate', {
          params: { path: { orgId: organization.id, id } },
        }),
      ),
    onSuccess: (k) => {
      setSecret(k.token ?? null);
      void queries.invalidateQueries({ queryKey: key });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Section title={t('settings.apiKeys')} id="api-keys">
      <form className="grid-form" onSubmit={submit}>
        <div>
          <label htmlFor="key-name">{t('settings.name')}</label>
          <input
            id="key-name"
            required
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
          />
        </div>
        <div>
          <label htmlFor="key-access">{t('settings.access')}</label>
          <select
            id="key-access"
            value={form.access}
            onChange={(e) => setForm({ ...form, access: e.target.value === 'read' ? 'read' : 'full' })}
          >
            <option value="full">{t('settings.accessFull')}</option>
            <option value="read">{t('settings.accessRead')}</option>
          </select>
        </div>
        <div>
          <label htmlFor="key-role">{t('settings.role')}</label>
          <select
            id="key-role"
            value={form.role}
            onChange={(e) => setForm({ ...form, role: ROLES.find((r) => r === e.target.value) ?? 'Viewer' })}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`role.${r}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            {t('settings.createKey')}
          </button>
        </div>
      </form>
      {(create.isError || revoke.isError || rotate.isError) && (
        <ErrorNote error={create.error ?? revoke.error ?? rotate.error} />
      )}
      {secret && (
        <div role="status" className="notice warning">
          <p>{t('settings.secretOnce')}</p>
          <p>
            <code data-testid="api-key-secret">{secret}</code> <CopyButton text={secret} />
          </p>
        </div>
      )}
      {list.isPending && <Loading />}
      {list.data && (
        <div className="table-wrap">
          <table data-testid="api-keys">
            <thead>
              <tr>
                <th scope="col">{t('settings.name')}</th>
                <th scope="col">{t('settings.keyId')}</th>
                <th scope="col">{t('settings.role')}</th>
                <th scope="col">{t('settings.keyStatus')}</th>
                <th scope="col">{t('settings.lastUsed')}</th>
                <th scope="col">
                  <span className="sr-only">{t('settings.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}</code>
                  </td>
                  <td>{t(`role.${k.role}`)}</td>
                  <td>{k.status}</td>
                  <td>{k.lastUsedAt ? dateTime(k.lastUsedAt, zone, locale) : '—'}</td>
                  <td>
                    {k.status === 'active' && (
                      <>
                        <button type="button" className="secondary" onClick={() => rotate.mutate(k.id)}>
                          {t('settings.rotate')}
                        </button>{' '}
                        <button type="button" className="secondary" onClick={() => revoke.mutate(k.id)}>
                          {t('settings.revoke')}
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

function CopyButton({ text }: { text: string }) {
  const { t } = useI18n();
  const [done, setDone] = useState(false);
  return (
    <>
      <button
        type="button"
        className="secondary"
        onClick={() => void navigator.clipboard.writeText(text).then(() => setDone(true))}
      >
        {t('settings.copy')}
      </button>{' '}
      {done && <span>{t('checkouts.copied')}</span>}
    </>
  );
}
