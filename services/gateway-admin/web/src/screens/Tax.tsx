import { useState } from 'react';
import { api, must, mustOk, type paths } from '../api';
import { Check, SelectField, TextField, useFields, WriteButton } from '../forms';
import { useI18n } from '../i18n';
import { can } from '../session';
import { ErrorNote, Loaded, Section, useMember, useOrgMutation, useOrgQuery } from '../ui';
import { PagedTable } from '../list';
import { TaxTabs } from './TaxTabs';

type Json<P extends keyof paths, M extends 'get' | 'put'> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer T } } };
}
  ? T
  : never;
type TaxSettings = Json<'/api/v1/organizations/settings/tax', 'get'>;
type RatesPreview = Json<'/api/v1/tax-rates/replace-defaults/preview', 'get'>;
type RulesPreview = Json<'/api/v1/tax-rules/populate-defaults/preview', 'get'>;
type Managed = 'all' | 'true' | 'false';

const PAGE = 20;
const PRICE_MODES = ['gross', 'net'] as const;
const LEVELS = ['per_line', 'per_document'] as const;
const METHODS = ['half_up', 'half_even'] as const;
/** `value` when it is one of `values`, else the first. */
const oneOf = <T extends string>(values: readonly [T, ...T[]], value: string): T =>
  values.find((v) => v === value) ?? values[0];
const pct = (n: number, locale: string) => `${new Intl.NumberFormat(locale, { maximumFractionDigits: 3 }).format(n)} %`;

/** The managed / custom badge of a rate or rule. */
function Origin({ managed }: { managed: boolean }) {
  const { t } = useI18n();
  return (
    <span className={`badge ${managed ? 'managed' : 'custom'}`} data-managed={String(managed)}>
      {t(managed ? 'tax.managed' : 'tax.custom')}
    </span>
  );
}

/** The organization's tax settings: home country, OSS / IOSS, VIES, VAT ID, price mode, rounding. */
function SettingsForm({ settings }: { settings: TaxSettings }) {
  const { t } = useI18n();
  const [form, set] = useFields({
    homeCountry: settings.homeCountry ?? '',
    ossEnabled: settings.ossEnabled,
    iossEnabled: settings.iossEnabled,
    viesEnabled: settings.viesEnabled,
    vatId: settings.vatId ?? '',
    priceMode: oneOf(PRICE_MODES, settings.priceMode),
    level: oneOf(LEVELS, settings.rounding.level),
    method: oneOf(METHODS, settings.rounding.method),
  });
  const save = useOrgMutation(
    async () =>
      must(
        await api.PUT('/api/v1/organizations/settings/tax', {
          body: {
            homeCountry: form.homeCountry.trim() ? form.homeCountry.trim().toUpperCase() : null,
            ossEnabled: form.ossEnabled,
            iossEnabled: form.iossEnabled,
            viesEnabled: form.viesEnabled,
            vatId: form.vatId.trim() || null,
            priceMode: form.priceMode,
            rounding: { level: form.level, method: form.method },
          },
        }),
      ),
    ['tax-settings'],
  );
  const flag = (key: 'ossEnabled' | 'iossEnabled' | 'viesEnabled', label: string) => (
    <Check id={`tax-${key}`} label={label} checked={form[key]} onChange={set(key)} />
  );
  return (
    <form
      className="grid-form"
      id="tax-settings-form"
      aria-label={t('tax.settings')}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(undefined);
      }}
    >
      <TextField
        id="tax-home-country"
        label={t('tax.homeCountry')}
        hint={t('tax.homeCountryHint')}
        value={form.homeCountry}
        maxLength={2}
        onChange={set('homeCountry')}
      />
      <TextField
        id="tax-vat-id"
        label={t('tax.vatId')}
        value={form.vatId}
        maxLength={40}
        plain
        onChange={set('vatId')}
      />
      <SelectField
        id="tax-price-mode"
        label={t('tax.priceMode')}
        value={form.priceMode}
        options={[
          ['gross', t('tax.priceGross')],
          ['net', t('tax.priceNet')],
        ]}
        onChange={set('priceMode')}
      />
      <SelectField
        id="tax-rounding-level"
        label={t('tax.roundingLevel')}
        value={form.level}
        options={[
          ['per_line', t('tax.perLine')],
          ['per_document', t('tax.perDocument')],
        ]}
        onChange={set('level')}
      />
      <SelectField
        id="tax-rounding-method"
        label={t('tax.roundingMethod')}
        value={form.method}
        options={[
          ['half_up', t('tax.halfUp')],
          ['half_even', t('tax.halfEven')],
        ]}
        onChange={set('method')}
      />
      <fieldset className="wide">
        <legend>{t('tax.schemes')}</legend>
        {flag('ossEnabled', t('tax.oss'))}
        {flag('iossEnabled', t('tax.ioss'))}
        {flag('viesEnabled', t('tax.vies'))}
      </fieldset>
      <div className="actions">
        <button type="submit" disabled={save.isPending} data-testid="tax-settings-save">
          {t('tax.save')}
        </button>
      </div>
      {save.isSuccess && !save.isPending && (
        <p role="status" className="notice" data-testid="tax-settings-saved">
          {t('tax.saved')}
        </p>
      )}
      {save.isError && <ErrorNote error={save.error} />}
    </form>
  );
}

/** What replace-defaults would do, shown before the Admin confirms it. */
function RatesPreviewView({ preview }: { preview: RatesPreview }) {
  const { t, locale } = useI18n();
  const nothing = preview.create.length + preview.update.length + preview.retire.length === 0;
  return (
    <div data-testid="rates-preview">
      <p>
        {t('tax.previewSummary', {
          create: preview.create.length,
          update: preview.update.length,
          retire: preview.retire.length,
          unchanged: preview.unchanged,
          skipped: preview.skipped.length,
        })}
      </p>
      {nothing ? (
        <p className="muted">{t('tax.previewNothing')}</p>
      ) : (
        <ul className="changes" data-testid="rates-preview-changes">
          {preview.create.map((r) => (
            <li key={`c-${r.code}-${r.validFrom}`} data-change="create">
              {t('tax.willCreate', {
                code: r.code,
                country: r.country,
                rate: pct(r.percent, locale),
                from: r.validFrom,
              })}
            </li>
          ))}
          {preview.update.map((u) => (
            <li key={`u-${u.rate.id}`} data-change="update">
              {t('tax.willUpdate', {
                code: u.rate.code,
                before: pct(u.rate.percent, locale),
                after: pct(u.to.percent, locale),
                from: u.to.validFrom,
              })}
            </li>
          ))}
          {preview.retire.map((r) => (
            <li key={`r-${r.id}`} data-change="retire">
              {t('tax.willRetire', { code: r.code, country: r.country, from: r.validFrom })}
            </li>
          ))}
        </ul>
      )}
      {preview.skipped.length > 0 && (
        <ul className="changes muted">
          {preview.skipped.map((s) => (
            <li key={`s-${s.code}-${s.validFrom}`}>
              {t(s.reason === 'customized' ? 'tax.skipCustomized' : 'tax.skipConflict', {
                code: s.code,
                from: s.validFrom,
              })}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function RulesPreviewView({ preview }: { preview: RulesPreview }) {
  const { t } = useI18n();
  return (
    <div data-testid="rules-preview">
      {preview.create.length === 0 ? (
        <p className="muted">{t('tax.rulesUpToDate')}</p>
      ) : (
        <>
          <p>{t('tax.rulesWillCreate', { count: preview.create.length })}</p>
          <ul className="changes">
            {preview.create.map((r) => (
              <li key={`${r.name}-${r.country ?? ''}-${r.category ?? ''}-${r.itemType ?? ''}`}>
                {r.name} ({t(`tax.rateType.${r.rateType}`)})
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** Replace-defaults (rates) or populate-defaults (rules): a preview first, then the confirmed write. */
function DefaultsSync({ kind }: { kind: 'rates' | 'rules' }) {
  const { t } = useI18n();
  const [step, setStep] = useState<'idle' | 'preview' | 'done'>('idle');
  const preview = useOrgQuery(['tax-defaults-preview', kind, step], async () =>
    kind === 'rates'
      ? { kind: 'rates' as const, rates: must(await api.GET('/api/v1/tax-rates/replace-defaults/preview')) }
      : { kind: 'rules' as const, rules: must(await api.GET('/api/v1/tax-rules/populate-defaults/preview')) },
  );
  const apply = useOrgMutation(
    async () =>
      kind === 'rates'
        ? must(await api.POST('/api/v1/tax-rates/replace-defaults')).created.length
        : must(await api.POST('/api/v1/tax-rules/populate-defaults')).created.length,
    [kind === 'rates' ? 'tax-rates' : 'tax-rules'],
    () => setStep('done'),
  );
  const id = `${kind}-defaults`;
  return (
    <div className="defaults" id={id}>
      {step !== 'preview' ? (
        <button type="button" className="secondary" data-testid={`${id}-preview`} onClick={() => setStep('preview')}>
          {t(kind === 'rates' ? 'tax.previewReplace' : 'tax.previewPopulate')}
        </button>
      ) : (
        <Loaded q={preview}>
          {(p) => (
            <>
              {p.kind === 'rates' ? <RatesPreviewView preview={p.rates} /> : <RulesPreviewView preview={p.rules} />}
              <div className="actions">
                <button
                  type="button"
                  data-testid={`${id}-confirm`}
                  disabled={apply.isPending}
                  onClick={() => apply.mutate(undefined)}
                >
                  {t(kind === 'rates' ? 'tax.confirmReplace' : 'tax.confirmPopulate')}
                </button>{' '}
                <button type="button" className="secondary" onClick={() => setStep('idle')}>
                  {t('tax.cancel')}
                </button>
              </div>
            </>
          )}
        </Loaded>
      )}
      {step === 'done' && apply.isSuccess && (
        <p role="status" className="notice" data-testid={`${id}-done`}>
          {t('tax.defaultsDone', { count: apply.data })}
        </p>
      )}
      {apply.isError && <ErrorNote error={apply.error} />}
    </div>
  );
}

/** The rates, paged on the server, filtered by country and by managed or custom. */
function Rates() {
  const { t, locale } = useI18n();
  const [page, setPage] = useState(1);
  const [managed, setManaged] = useState<Managed>('all');
  const [country, setCountry] = useState('');
  const list = useOrgQuery(['tax-rates', page, managed, country], async () =>
    must(
      await api.GET('/api/v1/tax-rates', {
        params: {
          query: {
            page,
            limit: PAGE,
            ...(managed !== 'all' ? { managed } : {}),
            ...(/^[A-Za-z]{2}$/.test(country) ? { country: country.toUpperCase() } : {}),
          },
        },
      }),
    ),
  );
  return (
    <Section title={t('tax.rates')} id="tax-rates">
      <p className="muted">{t('tax.ratesIntro')}</p>
      <DefaultsSync kind="rates" />
      <div className="filters">
        <SelectField
          id="rates-managed"
          label={t('tax.origin')}
          value={managed}
          options={[
            ['all', t('tax.all')],
            ['true', t('tax.managedOnly')],
            ['false', t('tax.customOnly')],
          ]}
          onChange={(v) => {
            setManaged(v);
            setPage(1);
          }}
        />
        <TextField
          id="rates-country"
          label={t('tax.country')}
          value={country}
          maxLength={2}
          onChange={(v) => {
            setCountry(v);
            setPage(1);
          }}
        />
      </div>
      <PagedTable
        q={list}
        page={page}
        limit={PAGE}
        onPage={setPage}
        pager={{ label: t('tax.ratesPages') }}
        testId="tax-rates"
        caption={t('tax.rates')}
        empty={t('tax.noRates')}
        columns={[
          { header: t('tax.code'), cell: (r) => <code>{r.code}</code> },
          { header: t('tax.country'), cell: (r) => r.country },
          { header: t('tax.type'), cell: (r) => t(`tax.rateType.${r.rateType}`) },
          { header: t('tax.percent'), num: true, cell: (r) => pct(r.percent, locale) },
          { header: t('tax.validFrom'), cell: (r) => r.validFrom },
          { header: t('tax.validTo'), cell: (r) => r.validTo ?? '—' },
          { header: t('tax.origin'), cell: (r) => <Origin managed={r.managed} /> },
        ]}
      />
    </Section>
  );
}

function Rules() {
  const { t } = useI18n();
  const [page, setPage] = useState(1);
  const list = useOrgQuery(['tax-rules', page], async () =>
    must(await api.GET('/api/v1/tax-rules', { params: { query: { page, limit: PAGE } } })),
  );
  const remove = useOrgMutation(
    async (id: string) => mustOk(await api.DELETE('/api/v1/tax-rules/{id}', { params: { path: { id } } })),
    ['tax-rules'],
  );
  return (
    <Section title={t('tax.rules')} id="tax-rules">
      <p className="muted">{t('tax.rulesIntro')}</p>
      <DefaultsSync kind="rules" />
      <PagedTable
        q={list}
        page={page}
        limit={PAGE}
        onPage={setPage}
        pager={{ label: t('tax.rulesPages') }}
        testId="tax-rules"
        caption={t('tax.rules')}
        empty={t('tax.noRules')}
        columns={[
          { header: t('tax.name'), cell: (r) => r.name },
          { header: t('tax.country'), cell: (r) => r.country ?? t('tax.any') },
          { header: t('tax.category'), cell: (r) => r.category ?? t('tax.any') },
          { header: t('tax.itemType'), cell: (r) => r.itemType ?? t('tax.any') },
          { header: t('tax.type'), cell: (r) => t(`tax.rateType.${r.rateType}`) },
          { header: t('tax.priority'), num: true, cell: (r) => r.priority },
          { header: t('tax.origin'), cell: (r) => <Origin managed={r.managed} /> },
          {
            header: t('tax.delete'),
            srOnly: true,
            cell: (r) => (
              <WriteButton write={remove} input={r.id} aria-label={t('tax.deleteRule', { name: r.name })}>
                {t('tax.delete')}
              </WriteButton>
            ),
          },
        ]}
      />
      {remove.isError && <ErrorNote error={remove.error} />}
    </Section>
  );
}

/** Tax: settings, rates and rules with their managed defaults (Admins only, as the API requires). */
export function Tax() {
  const { t } = useI18n();
  const { role } = useMember();
  const admin = can(role, 'admin');
  const settings = useOrgQuery(['tax-settings'], async () => must(await api.GET('/api/v1/organizations/settings/tax')));
  return (
    <>
      <h1>{t('tax.title')}</h1>
      <TaxTabs />
      {!admin ? (
        <p>{t('tax.adminOnly')}</p>
      ) : (
        <>
          <Section title={t('tax.settings')} id="tax-settings">
            <Loaded q={settings}>{(s) => <SettingsForm settings={s} />}</Loaded>
          </Section>
          <Rates />
          <Rules />
        </>
      )}
    </>
  );
}
