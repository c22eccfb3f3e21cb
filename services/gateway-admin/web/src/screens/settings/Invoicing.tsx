import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, must, type components } from '../../api';
import { dateTime } from '../../format';
import { Check, CopyButton, GridForm, SelectField, TextField, useFields, WriteButton } from '../../forms';
import { useI18n } from '../../i18n';
import { can } from '../../session';
import { ErrorNote, Facts, Loaded, Section, useMember, useOrgMutation, useOrgQuery, useOrgTimeZone } from '../../ui';
import { SettingsPage } from './SettingsNav';

type InvoicingSettings = components['schemas']['InvoicingSettings'];
type Format = 'xrechnung' | 'peppol' | 'zugferd';
const FORMATS: Format[] = ['xrechnung', 'peppol', 'zugferd'];

/** Reads and writes of the invoicing settings share one cache entry; readiness follows every write. */
const INVOICING = ['settings', 'invoicing'] as const;

/** A text field's value as the settings take it: trimmed, null when blank (the stored value is cleared). */
const orNull = (v: string) => (v.trim() === '' ? null : v.trim());

function useInvoicingSave() {
  return useOrgMutation(
    async (body: Record<string, unknown>) => must(await api.PUT('/api/v1/organizations/settings/invoicing', { body })),
    ['settings'],
  );
}

/** Company details printed on documents (name, address, contact), the payout IBAN masked with a way to replace it. */
function Company({ s, write, admin }: { s: InvoicingSettings; write: boolean; admin: boolean }) {
  const { t } = useI18n();
  const [form, set] = useFields({
    companyName: s.companyName ?? '',
    companyEmail: s.companyEmail ?? '',
    companyPhone: s.companyPhone ?? '',
    street: s.companyAddress?.street ?? '',
    city: s.companyAddress?.city ?? '',
    postalCode: s.companyAddress?.postalCode ?? '',
    country: s.companyAddress?.country ?? '',
  });
  const [iban, setIban] = useState('');
  const save = useInvoicingSave();
  const saveIban = useInvoicingSave();
  const hasAddress = form.street || form.city || form.postalCode || form.country;
  return (
    <Section title={t('invoicing.company')} id="company">
      {write ? (
        <GridForm
          id="company-form"
          label={t('invoicing.company')}
          submit={t('invoicing.save')}
          attempt={save}
          onSubmit={() =>
            save.mutate({
              companyName: orNull(form.companyName),
              companyEmail: orNull(form.companyEmail),
              companyPhone: orNull(form.companyPhone),
              companyAddress: hasAddress
                ? {
                    street: form.street.trim(),
                    city: form.city.trim(),
                    postalCode: form.postalCode.trim(),
                    country: form.country.trim().toUpperCase(),
                  }
                : null,
            })
          }
        >
          <TextField
            id="company-name"
            label={t('invoicing.companyName')}
            value={form.companyName}
            onChange={set('companyName')}
          />
          <TextField
            id="company-email"
            type="email"
            label={t('invoicing.companyEmail')}
            value={form.companyEmail}
            onChange={set('companyEmail')}
          />
          <TextField
            id="company-phone"
            label={t('invoicing.companyPhone')}
            hint={t('invoicing.companyPhoneHint')}
            value={form.companyPhone}
            onChange={set('companyPhone')}
          />
          <TextField id="company-street" label={t('invoicing.street')} value={form.street} onChange={set('street')} />
          <TextField
            id="company-postal"
            label={t('invoicing.postalCode')}
            value={form.postalCode}
            onChange={set('postalCode')}
          />
          <TextField id="company-city" label={t('invoicing.city')} value={form.city} onChange={set('city')} />
          <TextField
            id="company-country"
            label={t('invoicing.country')}
            hint={t('invoicing.countryHint')}
            value={form.country}
            onChange={set('country')}
          />
        </GridForm>
      ) : (
        <Facts
          rows={[
            [t('invoicing.companyName'), s.companyName ?? '—'],
            [t('invoicing.companyEmail'), s.companyEmail ?? '—'],
            [t('invoicing.companyPhone'), s.companyPhone ?? '—'],
          ]}
        />
      )}
      {save.isSuccess && (
        <p role="status" className="notice">
          {t('invoicing.saved')}
        </p>
      )}
      <h3>{t('invoicing.iban')}</h3>
      <p data-testid="iban-masked">
        {s.bankIBAN ? <code>{s.bankIBAN.masked}</code> : <span className="muted">{t('invoicing.ibanNone')}</span>}
      </p>
      {admin && (
        <GridForm
          id="iban-form"
          label={t('invoicing.ibanReplace')}
          submit={t('invoicing.ibanReplace')}
          attempt={saveIban}
          onSubmit={() =>
            saveIban.mutate({ bankIBAN: { plaintext: iban.replace(/\s+/g, '') } }, { onSuccess: () => setIban('') })
          }
        >
          <TextField
            id="iban-new"
            label={t('invoicing.ibanNew')}
            hint={t('invoicing.ibanHint')}
            value={iban}
            onChange={setIban}
            plain
            required
          />
        </GridForm>
      )}
    </Section>
  );
}

/** E-invoice formats, the seller's Peppol address, and which missing value blocks which format (the API's readiness rules). */
function EInvoices({ s, write }: { s: InvoicingSettings; write: boolean }) {
  const { t } = useI18n();
  const e = s.eInvoice;
  const [enabled, setEnabled] = useState(e.enabled);
  const [formats, setFormats] = useState<Format[]>(FORMATS.filter((f) => e.allowedFormats.includes(f)));
  const [scheme, setScheme] = useState(e.sellerPeppolRoutingAddress?.schemeId ?? '');
  const [peppol, setPeppol] = useState('');
  const save = useInvoicingSave();
  const readiness = useOrgQuery(['settings', 'einvoice-readiness'], async () =>
    must(await api.GET('/api/v1/organizations/settings/invoicing/einvoice-readiness')),
  );
  return (
    <Section title={t('invoicing.einvoice')} id="einvoice">
      <p className="muted">{t('invoicing.einvoiceIntro')}</p>
      <Loaded q={readiness}>
        {(r) => (
          <ul className="readiness" data-testid="einvoice-readiness">
            {r.formats.map((f) => (
              <li key={f.format} data-testid={`readiness-${f.format}`} data-ready={String(f.ready)}>
                <strong>{t(`invoicing.format.${f.format}`)}</strong>
                {!f.allowed && <span className="muted"> · {t('invoicing.notAllowed')}</span>}
                {f.ready ? (
                  <span className="badge status-1"> {t('invoicing.ready')}</span>
                ) : (
                  <ul>
                    {f.missing.map((m) => (
                      <li key={m.field}>{t('invoicing.blockedBy', { field: m.field, why: m.message })}</li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      {write && (
        <GridForm
          id="einvoice-form"
          label={t('invoicing.einvoice')}
          submit={t('invoicing.save')}
          attempt={save}
          onSubmit={() =>
            save.mutate({
              eInvoice: {
                enabled,
                allowedFormats: formats,
                ...(scheme && peppol
                  ? { sellerPeppolRoutingAddress: { schemeId: scheme, value: { plaintext: peppol } } }
                  : {}),
              },
            })
          }
        >
          <fieldset className="wide">
            <legend>{t('invoicing.formats')}</legend>
            <Check
              id="einvoice-enabled"
              label={t('invoicing.einvoiceEnabled')}
              checked={enabled}
              onChange={setEnabled}
            />
            {FORMATS.map((f) => (
              <Check
                key={f}
                id={`format-${f}`}
                label={t(`invoicing.format.${f}`)}
                checked={formats.includes(f)}
                onChange={(on) => setFormats(on ? [...formats, f] : formats.filter((x) => x !== f))}
              />
            ))}
          </fieldset>
          <TextField
            id="peppol-scheme"
            label={t('invoicing.peppolScheme')}
            hint={t('invoicing.peppolSchemeHint')}
            value={scheme}
            onChange={setScheme}
          />
          <TextField
            id="peppol-value"
            label={t('invoicing.peppolValue')}
            hint={e.sellerPeppolRoutingAddress ? t('invoicing.peppolSet') : t('invoicing.peppolNone')}
            value={peppol}
            onChange={setPeppol}
          />
        </GridForm>
      )}
    </Section>
  );
}

/** Document e-mails: their language, the Reply-To address, and the sender address with its DNS check. */
function Emails({ s, write }: { s: InvoicingSettings; write: boolean }) {
  const { t } = useI18n();
  const d = s.documents;
  const [language, setLanguage] = useState<'en' | 'de'>(d.language === 'de' ? 'de' : 'en');
  const [replyTo, setReplyTo] = useState(d.replyToEmail ?? '');
  const [sender, setSender] = useState(d.senderEmail ?? '');
  const save = useInvoicingSave();
  const verify = useOrgMutation(
    async () => must(await api.POST('/api/v1/organizations/settings/invoicing/sender/verify')),
    ['settings'],
  );
  return (
    <Section title={t('emails.title')} id="emails">
      <p className="muted">{t('emails.intro')}</p>
      {write && (
        <GridForm
          id="emails-form"
          label={t('emails.title')}
          submit={t('invoicing.save')}
          attempt={save}
          onSubmit={() =>
            save.mutate({ documents: { language, replyToEmail: orNull(replyTo), senderEmail: orNull(sender) } })
          }
        >
          <SelectField<'en' | 'de'>
            id="emails-language"
            label={t('emails.language')}
            value={language}
            options={[
              ['en', 'English'],
              ['de', 'Deutsch'],
            ]}
            onChange={setLanguage}
          />
          <TextField
            id="emails-reply-to"
            type="email"
            label={t('emails.replyTo')}
            hint={t('emails.replyToHint')}
            value={replyTo}
            onChange={setReplyTo}
          />
          <TextField
            id="emails-sender"
            type="email"
            label={t('emails.sender')}
            hint={t('emails.senderHint')}
            value={sender}
            onChange={setSender}
          />
        </GridForm>
      )}
      {d.sender && (
        <div data-testid="sender-state">
          <Facts
            rows={[
              [t('emails.senderState'), t(`emails.state.${d.sender.state}`)],
              [
                t('emails.dnsRecord'),
                <code>
                  {d.sender.dnsRecord.type} {d.sender.dnsRecord.name} &quot;{d.sender.dnsRecord.value}&quot;
                </code>,
              ],
            ]}
          />
          {write && (
            <WriteButton write={verify} input={undefined}>
              {t('emails.verify')}
            </WriteButton>
          )}
          {verify.isError && <ErrorNote error={verify.error} />}
        </div>
      )}
    </Section>
  );
}

type Layout = InvoicingSettings['invoiceNumberLayout'];
type Period = 'none' | 'year' | 'year_month';

/** The layout fields the screen edits: prefix, the period shown, and the sequence's digits. */
interface LayoutForm {
  prefix: string;
  period: Period;
  digits: string;
}

function layoutForm(l: Layout): LayoutForm {
  const period: Period = l.periodType === 'none' ? 'none' : l.periodGranularity === 'year' ? 'year' : 'year_month';
  return { prefix: l.prefix, period, digits: String(l.sequenceDigits) };
}

/** A layout patch from the form: a shown period is the calendar's and resets yearly; none never resets. */
function layoutPatch(f: LayoutForm) {
  const digits = Number(f.digits);
  return {
    prefix: f.prefix.trim(),
    ...(f.period === 'none'
      ? { periodType: 'none' as const, resetPolicy: 'never' as const }
      : {
          periodType: 'calendar' as const,
          periodGranularity: f.period,
          resetPolicy: 'calendar_year' as const,
        }),
    ...(Number.isInteger(digits) && digits > 0 ? { sequenceDigits: digits } : {}),
  };
}

/** Numbering layouts of invoices and credit notes, with the next numbers as the API would draw them. */
function Numbering({ s, write }: { s: InvoicingSettings; write: boolean }) {
  const { t } = useI18n();
  const { organization } = useMember();
  const [forms, setForms] = useState({
    invoice: layoutForm(s.invoiceNumberLayout),
    creditNote: layoutForm(s.creditNoteNumberLayout),
  });
  const body = {
    invoiceNumberLayout: layoutPatch(forms.invoice),
    creditNoteNumberLayout: layoutPatch(forms.creditNote),
  };
  const preview = useQuery({
    queryKey: [organization.id, 'settings', 'number-preview', body],
    queryFn: async () => must(await api.POST('/api/v1/organizations/settings/invoicing/number-preview', { body })),
    retry: false,
  });
  const save = useInvoicingSave();
  const periods: Array<readonly [Period, string]> = [
    ['none', t('numbering.period.none')],
    ['year', t('numbering.period.year')],
    ['year_month', t('numbering.period.year_month')],
  ];
  const fields = (kind: 'invoice' | 'creditNote') => {
    const f = forms[kind];
    const set = (next: Partial<LayoutForm>) => setForms({ ...forms, [kind]: { ...f, ...next } });
    return (
      <>
        <TextField
          id={`${kind}-prefix`}
          label={t(`numbering.${kind}Prefix`)}
          value={f.prefix}
          onChange={(v) => set({ prefix: v })}
        />
        <SelectField<Period>
          id={`${kind}-period`}
          label={t(`numbering.${kind}Period`)}
          value={f.period}
          options={periods}
          onChange={(v) => set({ period: v })}
        />
        <TextField
          id={`${kind}-digits`}
          type="number"
          label={t(`numbering.${kind}Digits`)}
          value={f.digits}
          onChange={(v) => set({ digits: v })}
        />
      </>
    );
  };
  return (
    <Section title={t('numbering.title')} id="numbering">
      <p className="muted">{t('numbering.intro')}</p>
      <div role="status" data-testid="number-preview">
        {preview.data ? (
          <Facts
            rows={[
              [t('numbering.nextInvoice'), <code>{preview.data.invoice}</code>],
              [t('numbering.nextCreditNote'), <code>{preview.data.creditNote}</code>],
            ]}
          />
        ) : preview.isError ? (
          <ErrorNote error={preview.error} />
        ) : null}
      </div>
      {write && (
        <GridForm
          id="numbering-form"
          label={t('numbering.title')}
          submit={t('invoicing.save')}
          attempt={save}
          onSubmit={() => save.mutate(body)}
        >
          {fields('invoice')}
          {fields('creditNote')}
        </GridForm>
      )}
    </Section>
  );
}

/** The buyer portal: on or off, magic links on or off (Admins), and a magic link for one buyer. */
function Portal() {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const admin = can(role, 'admin');
  const settings = useOrgQuery(['settings', 'portal'], async () =>
    must(await api.GET('/api/v1/organizations/settings/portal')),
  );
  const save = useOrgMutation(
    async (body: { enabled?: boolean; magicLinksEnabled?: boolean }) =>
      must(await api.PUT('/api/v1/organizations/settings/portal', { body })),
    ['settings', 'portal'],
  );
  const [email, setEmail] = useState('');
  const [ttl, setTtl] = useState('');
  const link = useOrgMutation(
    async () =>
      must(
        await api.POST('/api/v1/organizations/settings/portal/magic-links', {
          body: { email, ...(ttl ? { ttlMinutes: Number(ttl) } : {}) },
        }),
      ),
    ['portal-links'],
  );
  return (
    <Section title={t('portal.title')} id="portal">
      <Loaded q={settings}>
        {(p) => (
          <fieldset className="wide" disabled={!admin || save.isPending}>
            <legend>{t('portal.access')}</legend>
            <Check
              id="portal-enabled"
              label={t('portal.enabled')}
              checked={p.enabled}
              onChange={(enabled) => save.mutate({ enabled })}
            />
            <Check
              id="portal-magic"
              label={t('portal.magicLinks')}
              checked={p.magicLinksEnabled}
              onChange={(magicLinksEnabled) => save.mutate({ magicLinksEnabled })}
            />
          </fieldset>
        )}
      </Loaded>
      {save.isError && <ErrorNote error={save.error} />}
      <h3>{t('portal.linkTitle')}</h3>
      <p className="muted">{t('portal.linkIntro')}</p>
      <GridForm id="magic-link-form" label={t('portal.linkTitle')} submit={t('portal.linkCreate')} write={link}>
        <TextField
          id="magic-email"
          type="email"
          label={t('portal.linkEmail')}
          value={email}
          onChange={setEmail}
          required
        />
        <TextField
          id="magic-ttl"
          type="number"
          label={t('portal.linkTtl')}
          hint={t('portal.linkTtlHint')}
          value={ttl}
          onChange={setTtl}
        />
      </GridForm>
      {link.data && (
        <div role="status" className="notice" data-testid="magic-link">
          <p>{t('portal.linkCreated', { expires: dateTime(link.data.expiresAt, zone, locale) })}</p>
          <p>
            <code data-testid="magic-link-url">{link.data.url}</code> <CopyButton text={link.data.url} />
          </p>
        </div>
      )}
    </Section>
  );
}

/** Invoicing settings (company, IBAN, e-invoices with their readiness) and the buyer portal with magic links. */
export function InvoicingSettingsScreen() {
  const { t } = useI18n();
  const { role } = useMember();
  const settings = useOrgQuery([...INVOICING], async () =>
    must(await api.GET('/api/v1/organizations/settings/invoicing')),
  );
  const write = can(role, 'write');
  return (
    <SettingsPage title={t('invoicing.settingsTitle')}>
      <Loaded q={settings}>
        {(s) => (
          <>
            <Company s={s} write={write} admin={can(role, 'admin')} />
            <EInvoices s={s} write={write} />
            <Numbering s={s} write={write} />
            <Emails s={s} write={write} />
          </>
        )}
      </Loaded>
      <Portal />
    </SettingsPage>
  );
}
