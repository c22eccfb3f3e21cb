import { useState, type CSSProperties } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { contrastOnWhite, hexColor, textOn } from '../../../../../../libs/contracts/src/brand-colors';
import { BackLink } from '../../layout';
import { api, must, mustOk, type components } from '../../api';
import { money } from '../../format';
import { Field, GridForm, SelectField, ShownOnce, TextField, WriteButton, type Attempt } from '../../forms';
import { useI18n } from '../../i18n';
import { can } from '../../session';
import { ListTable } from '../../table';
import { ErrorNote, Loaded, Section, useMember, useOrgMutation, useOrgQuery, useSites } from '../../ui';
import { SettingsPage } from './SettingsNav';
import { ResourceHistory } from '../../history';

type Site = components['schemas']['Site'];
type VatCheck = 'none' | 'format' | 'vies';
const VAT_CHECKS: VatCheck[] = ['none', 'format', 'vies'];
/** The hosted checkout's own colour when a site has none (services/gateway-public/web checkout.css). */
const HOSTED_DEFAULT = '#2944b8';

/** What the site form edits, as typed (empty = none). */
interface SiteDraft {
  name: string;
  url: string;
  /** One host name per line. */
  domains: string;
  logo: string;
  color: string;
  vat: VatCheck;
}

const EMPTY: SiteDraft = { name: '', url: '', domains: '', logo: '', color: '', vat: 'format' };

function draftOf(s: Site): SiteDraft {
  return {
    name: s.name,
    url: s.url,
    domains: s.frontendDomains.join('\n'),
    logo: s.branding.logo ?? '',
    color: s.branding.primaryColor ?? '',
    vat: VAT_CHECKS.find((v) => v === s.checkoutSettings.vatIdValidation) ?? 'format',
  };
}

const domainsOf = (d: SiteDraft) =>
  d.domains
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

/** The hosted checkout's colours for a brand colour, by the hosted page's own rules. */
export function BrandPreview({ name, color, logo }: { name: string; color: string; logo: string }) {
  const { t, locale } = useI18n();
  const brand = hexColor(color.trim()) ?? HOSTED_DEFAULT;
  const vars = {
    '--brand': brand,
    '--brand-text': textOn(brand),
    // Links take the brand colour only where it stays readable on white (as on the hosted page).
    '--accent': contrastOnWhite(brand) >= 4.5 ? brand : HOSTED_DEFAULT,
  } as CSSProperties;
  const amount = money(4990, 'EUR', locale);
  // The hosted page shows a logo only from an https URL; so does its preview.
  const logoUrl = /^https:\/\//i.test(logo.trim()) ? logo.trim() : '';
  return (
    <figure className="preview" aria-labelledby="preview-caption">
      <figcaption id="preview-caption">{t('site.preview')}</figcaption>
      <div className="preview-page" style={vars} data-testid="brand-preview" data-brand={brand}>
        <div className="preview-head">
          {logoUrl && (
            <img className="preview-logo" src={logoUrl} alt={t('site.previewLogo')} referrerPolicy="no-referrer" />
          )}
          <strong>{name || t('site.previewShop')}</strong>
        </div>
        <p className="preview-line">
          <span>{t('site.previewItem')}</span> <span>{amount}</span>
        </p>
        <p className="preview-link">{t('site.previewTerms')}</p>
        <span className="preview-button" data-testid="preview-pay">
          {t('site.previewPay', { amount })}
        </span>
      </div>
    </figure>
  );
}

/** Every field of a site the API takes; `onSave` gets the typed draft. */
function SiteForm({
  initial,
  submit,
  onSave,
  attempt,
  id,
}: {
  initial: SiteDraft;
  submit: string;
  onSave: (d: SiteDraft) => void;
  attempt: Attempt;
  id: string;
}) {
  const { t } = useI18n();
  const [d, setD] = useState(initial);
  const set = (patch: Partial<SiteDraft>) => setD({ ...d, ...patch });
  const f = (name: string) => `${id}-${name}`;
  return (
    <div className="site-editor">
      <GridForm label={submit} submit={submit} onSubmit={() => onSave(d)} attempt={attempt} id={id}>
        <TextField
          id={f('name')}
          label={t('settings.name')}
          value={d.name}
          required
          maxLength={200}
          onChange={(name) => set({ name })}
        />
        <TextField
          id={f('url')}
          label={t('site.url')}
          type="url"
          value={d.url}
          required
          onChange={(url) => set({ url })}
          plain
        />
        <Field id={f('domains')} label={t('settings.domains')} hint={t('site.domainsHint')} className="wide">
          {(describedBy) => (
            <textarea
              id={f('domains')}
              rows={3}
              value={d.domains}
              aria-describedby={describedBy}
              spellCheck={false}
              onChange={(e) => set({ domains: e.target.value })}
            />
          )}
        </Field>
        <TextField
          id={f('logo')}
          label={t('site.logo')}
          type="url"
          value={d.logo}
          hint={t('site.logoHint')}
          onChange={(logo) => set({ logo })}
          plain
        />
        <Field id={f('color')} label={t('site.color')} hint={t('site.colorHint')}>
          {(describedBy) => (
            <span className="color-pair">
              <input
                id={f('color')}
                value={d.color}
                placeholder={HOSTED_DEFAULT}
                pattern="#[0-9a-fA-F]{6}"
                maxLength={7}
                aria-describedby={describedBy}
                spellCheck={false}
                onChange={(e) => set({ color: e.target.value })}
              />
              <input
                type="color"
                aria-label={t('site.colorPicker')}
                value={hexColor(d.color) ?? HOSTED_DEFAULT}
                onChange={(e) => set({ color: e.target.value })}
              />
            </span>
          )}
        </Field>
        <SelectField
          id={f('vat')}
          label={t('site.vatCheck')}
          value={d.vat}
          options={VAT_CHECKS.map((v) => [v, t(`site.vat.${v}`)] as const)}
          onChange={(vat) => set({ vat })}
          hint={t('site.vatHint')}
        />
      </GridForm>
      <BrandPreview name={d.name} color={d.color} logo={d.logo} />
    </div>
  );
}

export function Sites() {
  const { t } = useI18n();
  const { role } = useMember();
  const list = useSites();
  const [created, setCreated] = useState<Site | null>(null);
  const create = useOrgMutation(
    async (d: SiteDraft) =>
      must(
        await api.POST('/api/v1/sites', {
          body: {
            name: d.name,
            url: d.url,
            frontendDomains: domainsOf(d),
            branding: { ...(d.logo ? { logo: d.logo } : {}), ...(d.color ? { primaryColor: d.color } : {}) },
            checkoutSettings: { vatIdValidation: d.vat },
          },
        }),
      ),
    ['sites'],
    (site) => setCreated(site),
  );
  return (
    <SettingsPage title={t('settings.sites')}>
      <Section title={t('settings.sites')} id="sites">
        <ListTable
          q={list}
          testId="sites"
          empty={t('site.none')}
          recordLink={{ header: t('settings.name'), to: '/settings/sites/$id', text: (s) => s.name }}
          columns={[
            { header: 'URL', cell: (s) => s.url },
            { header: t('settings.domains'), cell: (s) => s.frontendDomains.join(', ') || '—' },
            { header: t('settings.signingSecret'), cell: (s) => <code>{s.webhookSigningSecretHint}</code> },
          ]}
        />
      </Section>
      {can(role, 'write') && (
        <Section title={t('site.create')} id="create-site">
          {created?.webhookSigningSecret && (
            <ShownOnce
              message={t('settings.secretRotated', { site: created.name })}
              value={created.webhookSigningSecret}
              testId="signing-secret"
            />
          )}
          <SiteForm
            key={created?.id ?? 'new'}
            id="new-site"
            initial={EMPTY}
            submit={t('site.createSubmit')}
            onSave={(d) => create.mutate(d)}
            attempt={create}
          />
        </Section>
      )}
    </SettingsPage>
  );
}

export function SiteScreen({ id }: { id: string }) {
  const { t } = useI18n();
  const { role } = useMember();
  const navigate = useNavigate();
  const site = useOrgQuery(['sites', id], async () =>
    must(await api.GET('/api/v1/sites/{id}', { params: { path: { id } } })),
  );
  const [saved, setSaved] = useState(false);
  const path = { params: { path: { id } } };
  const update = useOrgMutation(
    async (d: SiteDraft) =>
      must(
        await api.PUT('/api/v1/sites/{id}', {
          ...path,
          body: {
            name: d.name,
            url: d.url,
            frontendDomains: domainsOf(d),
            branding: { logo: d.logo || null, primaryColor: d.color || null },
            checkoutSettings: { vatIdValidation: d.vat },
          },
        }),
      ),
    ['sites'],
    () => setSaved(true),
  );
  const [secret, setSecret] = useState<string | null>(null);
  const rotate = useOrgMutation(
    async () => must(await api.POST('/api/v1/sites/{id}/webhook-secret/regenerate', path)),
    ['sites'],
    (s) => setSecret(s.webhookSigningSecret ?? null),
  );
  const remove = useOrgMutation(
    async () => mustOk(await api.DELETE('/api/v1/sites/{id}', path)),
    ['sites'],
    () => void navigate({ to: '/settings/sites' }),
  );
  return (
    <SettingsPage title={site.data ? t('site.title', { name: site.data.name }) : t('settings.sites')}>
      <BackLink to="/settings/sites" label={t('site.back')} />
      <Loaded q={site}>
        {(s) => (
          <>
            <Section title={t('site.edit')} id="site">
              {saved && (
                <p role="status" className="notice">
                  {t('site.saved')}
                </p>
              )}
              {can(role, 'write') ? (
                <SiteForm
                  key={s.updatedAt}
                  id="site-form"
                  initial={draftOf(s)}
                  submit={t('site.save')}
                  onSave={(d) => {
                    setSaved(false);
                    update.mutate(d);
                  }}
                  attempt={update}
                />
              ) : (
                <BrandPreview name={s.name} color={s.branding.primaryColor ?? ''} logo={s.branding.logo ?? ''} />
              )}
            </Section>
            <Section title={t('settings.signingSecret')} id="signing">
              <p>
                {t('site.secretHint')} <code>{s.webhookSigningSecretHint}</code>
              </p>
              {secret && (
                <ShownOnce
                  message={t('settings.secretRotated', { site: s.name })}
                  value={secret}
                  testId="signing-secret"
                />
              )}
              {rotate.isError && <ErrorNote error={rotate.error} />}
              {can(role, 'write') && (
                <WriteButton write={rotate} input={undefined}>
                  {t('settings.rotateSecret')}
                </WriteButton>
              )}
            </Section>
            {can(role, 'admin') && (
              <Section title={t('site.delete')} id="delete-site">
                <p className="muted">{t('site.deleteHint')}</p>
                {remove.isError && <ErrorNote error={remove.error} />}
                <WriteButton write={remove} input={undefined}>
                  {t('site.delete')}
                </WriteButton>
              </Section>
            )}
            <ResourceHistory resource="site" id={s.id} />
          </>
        )}
      </Loaded>
    </SettingsPage>
  );
}
