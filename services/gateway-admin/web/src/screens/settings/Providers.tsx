import { useState } from 'react';
import { api, must, type components, type paths } from '../../api';
import { GridForm, SelectField, ShownOnce, TextField, WriteButton } from '../../forms';
import { isMessageKey, useI18n } from '../../i18n';
import { can } from '../../session';
import { ListTable } from '../../table';
import { ErrorNote, Loaded, Section, useMember, useOrgMutation, useOrgQuery } from '../../ui';
import { SettingsPage } from './SettingsNav';
import { useHistoryPicker } from '../../history';

type Provider = components['schemas']['Provider'];
type ProviderType = components['schemas']['ProviderTypes']['items'][number];
type CreateBody = paths['/api/v1/providers']['post']['requestBody']['content']['application/json'];

/**
 * A provider record's form, built from the credentials schema the API publishes for the type
 * (GET /providers/types: the schema POST /providers validates with), so a new field or type needs
 * no change here: a choice becomes a select, anything else a text field with the schema's bounds.
 */
function CredentialsForm({ types, onCreated }: { types: ProviderType[]; onCreated: (secret: string | null) => void }) {
  const { t } = useI18n();
  const [type, setType] = useState(types[0]?.type ?? 'provider_a');
  const [name, setName] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const schema = types.find((x) => x.type === type)?.credentials;
  const create = useOrgMutation(
    async () => {
      const credentials = Object.fromEntries(
        Object.entries(values).filter(([k, v]) => v !== '' && schema?.properties[k]),
      );
      // The API checks the credentials against the same schema (400 naming the field).
      const body = { type, name, credentials } as CreateBody;
      return must(await api.POST('/api/v1/providers', { body }));
    },
    ['providers'],
    (p) => {
      setValues({});
      setName('');
      onCreated(p.webhookSecret ?? null);
    },
  );
  const label = (field: string) => {
    const key = `providerField.${field}`;
    return isMessageKey(key) ? t(key) : field;
  };
  /** The schema's description in the UI's language (the catalogue's English is the API's text). */
  const hint = (field: string, description: string | undefined) => {
    const key = `providerHint.${type}.${field}`;
    return isMessageKey(key) ? t(key) : description;
  };
  return (
    <GridForm label={t('providers.add')} submit={t('providers.addSubmit')} write={create} id="add-provider-form">
      <SelectField
        id="provider-type"
        label={t('providers.type')}
        value={type}
        options={types.map((x) => [x.type, x.type] as const)}
        onChange={(next) => {
          setType(next);
          setValues({});
        }}
      />
      <TextField
        id="provider-name"
        label={t('settings.name')}
        value={name}
        required
        maxLength={200}
        onChange={setName}
      />
      {schema &&
        Object.entries(schema.properties).map(([field, spec]) => {
          const id = `cred-${field}`;
          const required = schema.required.includes(field);
          const text = `${label(field)}${required ? '' : ` (${t('providers.optional')})`}`;
          const value = values[field] ?? '';
          const set = (v: string) => setValues({ ...values, [field]: v });
          // The control of one credential: a choice of its values, or its text.
          const control = { id, label: text, hint: hint(field, spec.description), value, onChange: set };
          return spec.enum ? (
            <SelectField
              key={`${type}-${field}`}
              {...control}
              options={[['', '—'] as const, ...spec.enum.map((v) => [v, v] as const)]}
            />
          ) : (
            <TextField
              key={`${type}-${field}`}
              {...control}
              required={required}
              minLength={spec.minLength}
              maxLength={spec.maxLength}
              plain
            />
          );
        })}
    </GridForm>
  );
}

export function Providers() {
  const { t } = useI18n();
  const { role } = useMember();
  const admin = can(role, 'admin');
  const list = useOrgQuery(['providers'], async () => must(await api.GET('/api/v1/providers')));
  const types = useOrgQuery(['provider-types'], async () => must(await api.GET('/api/v1/providers/types')));
  const [secret, setSecret] = useState<string | null>(null);
  const history = useHistoryPicker<Provider>(
    'provider',
    (p) => p.id,
    (p) => p.name,
  );
  const toggle = useOrgMutation(
    async (v: { id: string; enabled: boolean }) =>
      must(
        await api.PUT('/api/v1/providers/{id}/toggle', {
          params: { path: { id: v.id } },
          body: { enabled: v.enabled },
        }),
      ),
    ['providers'],
  );
  return (
    <SettingsPage title={t('settings.providers')}>
      <Section title={t('settings.providers')} id="providers">
        {toggle.isError && <ErrorNote error={toggle.error} />}
        <ListTable
          q={list}
          testId="providers"
          empty={t('providers.none')}
          columns={[
            { header: t('settings.name'), cell: (p) => p.name },
            { header: t('providers.type'), cell: (p) => p.type },
            {
              header: t('providers.credentials'),
              cell: (p) =>
                Object.entries(p.credentialHints)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join(', ') || '—',
            },
            {
              header: t('settings.keyStatus'),
              cell: (p) => (p.enabled ? t('settings.enabled') : t('settings.disabled')),
            },
            admin && {
              header: t('settings.actions'),
              srOnly: true,
              cell: (p) => (
                <WriteButton
                  write={toggle}
                  input={{ id: p.id, enabled: !p.enabled }}
                  aria-label={t(p.enabled ? 'providers.disableName' : 'providers.enableName', { name: p.name })}
                >
                  {p.enabled ? t('settings.disable') : t('settings.enable')}
                </WriteButton>
              ),
            },
            history.column,
          ]}
        />
      </Section>
      {history.panel}
      {admin && (
        <Section title={t('providers.add')} id="add-provider">
          {secret && (
            <ShownOnce message={t('providers.webhookSecret')} value={secret} testId="provider-webhook-secret" />
          )}
          <Loaded q={types}>{(data) => <CredentialsForm types={data.items} onCreated={setSecret} />}</Loaded>
        </Section>
      )}
    </SettingsPage>
  );
}
