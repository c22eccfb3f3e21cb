import { useState, type ReactNode } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { BackLink } from '../layout';
import { api, must } from '../api';
import {
  DateRangeFields,
  FilterSelect,
  GridForm,
  SearchField,
  SecondaryButton,
  SelectField,
  TextField,
  useFields,
} from '../forms';
import { dateTime, day, money, parseAmount } from '../format';
import { useI18n } from '../i18n';
import {
  DocumentEmails,
  download,
  INVOICE_STATUSES,
  InvoiceStatusBadge,
  ITEM_TYPES,
  invoiceColumns,
  useDebounced,
  type Invoice,
  type InvoiceInput,
  type InvoiceStatus,
  type ItemType,
} from '../invoicing';
import { FilterForm, onlySet, PagedTable, usePagedList } from '../list';
import type { InvoicesSearch } from '../search';
import { can } from '../session';
import { DataTable } from '../table';
import {
  ErrorNote,
  Facts,
  Loaded,
  Section,
  useMember,
  useOrgMutation,
  useOrgQuery,
  useOrgTimeZone,
  useSites,
} from '../ui';
import { ConfirmAction } from '../confirm';
import { ResourceHistory } from '../history';
import { CorrectInvoice, PaymentLinks, ProformaPreview } from './invoice-actions';

/** Invoices: filters (status, client, issue dates, number) and server-side paging. */
export function Invoices({ search }: { search: InvoicesSearch }) {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const navigate = useNavigate();
  const list = usePagedList({
    key: ['invoices'],
    search,
    go: (next: InvoicesSearch) => void navigate({ to: '/invoices', search: next }),
    read: async (page, limit) =>
      must(
        await api.GET('/api/v1/invoices', {
          params: {
            query: {
              page,
              limit,
              ...onlySet({
                status: search.status,
                clientId: search.clientId,
                startDate: search.startDate,
                endDate: search.endDate,
                number: search.number,
                minAmount: search.minAmount,
                maxAmount: search.maxAmount,
              }),
            },
          },
        }),
      ),
  });
  const { draft, setDraft } = list;
  return (
    <>
      <h1>{t('invoices.title')}</h1>
      {can(role, 'write') && (
        <p>
          <Link to="/invoices/new" search={{}} id="new-invoice">
            {t('invoices.new')}
          </Link>
        </p>
      )}
      <FilterForm onApply={list.apply}>
        <SearchField
          id="if-number"
          label={t('invoices.number')}
          value={draft.number ?? ''}
          placeholder={t('invoices.numberHint')}
          onChange={(number) => setDraft({ ...draft, number: number || undefined })}
        />
        <FilterSelect
          id="if-status"
          label={t('invoices.status')}
          anyLabel={t('payments.anyStatus')}
          value={draft.status}
          options={INVOICE_STATUSES.map((s): readonly [InvoiceStatus, string] => [s, t(`invoiceStatus.${s}`)])}
          onChange={(status) => setDraft({ ...draft, status })}
        />
        <ClientPicker
          id="if-client"
          value={draft.clientId ?? ''}
          onChange={(clientId) => setDraft({ ...draft, clientId: clientId || undefined })}
          anyLabel={t('invoices.anyClient')}
        />
        <DateRangeFields idPrefix="if" value={draft} onChange={(range) => setDraft({ ...draft, ...range })} />
        <AmountField
          id="if-min"
          label={t('invoices.minAmount')}
          value={draft.minAmount}
          onChange={(minAmount) => setDraft({ ...draft, minAmount })}
        />
        <AmountField
          id="if-max"
          label={t('invoices.maxAmount')}
          value={draft.maxAmount}
          onChange={(maxAmount) => setDraft({ ...draft, maxAmount })}
        />
      </FilterForm>
      <PagedTable
        {...list.paging}
        testId="invoices"
        caption={t('invoices.title')}
        empty={t('invoices.empty')}
        columns={invoiceColumns(t, locale)}
      />
    </>
  );
}

/** A gross amount bound of the list, typed in the major unit (two decimals), kept in minor units. */
function AmountField({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: number | undefined;
  onChange: (minor: number | undefined) => void;
}) {
  const [text, setText] = useState(value === undefined ? '' : (value / 100).toFixed(2));
  const bad = text.trim() !== '' && parseAmount(text, 'EUR') === null;
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        inputMode="decimal"
        value={text}
        aria-invalid={bad}
        onChange={(e) => {
          setText(e.target.value);
          onChange(parseAmount(e.target.value, 'EUR') ?? undefined);
        }}
      />
    </div>
  );
}

/** A client chosen from a search (name, e-mail or tax ID) over the organization's clients. */
function ClientPicker({
  id,
  value,
  onChange,
  anyLabel,
}: {
  id: string;
  value: string;
  onChange: (clientId: string) => void;
  anyLabel?: string;
}) {
  const { t } = useI18n();
  const { role } = useMember();
  const [q, setQ] = useState('');
  const settled = useDebounced(q.trim(), 250);
  const found = useOrgQuery(['clients', 'picker', settled], async () =>
    settled
      ? must(await api.GET('/api/v1/clients/search', { params: { query: { q: settled, limit: 20 } } }))
      : must(await api.GET('/api/v1/clients', { params: { query: { limit: 20 } } })),
  );
  const chosen = useOrgQuery(['clients', 'one', value], async () =>
    value ? must(await api.GET('/api/v1/clients/{id}', { params: { path: { id: value } } })) : null,
  );
  const options = found.data?.items ?? [];
  const extra = chosen.data && !options.some((c) => c.id === chosen.data?.id) ? [chosen.data] : [];
  return (
    <>
      {/* Search is client:execute: a Viewer picks from the newest clients. */}
      {can(role, 'write') && (
        <SearchField
          id={`${id}-q`}
          label={t('invoices.findClient')}
          value={q}
          placeholder={t('clients.searchHint')}
          onChange={setQ}
        />
      )}
      <div>
        <label htmlFor={id}>{t('invoices.client')}</label>
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{anyLabel ?? t('invoices.chooseClient')}</option>
          {[...extra, ...options].map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
              {c.email ? ` <${c.email}>` : ''}
              {c.address ? ` · ${c.address.country}` : ''}
            </option>
          ))}
        </select>
      </div>
    </>
  );
}

interface LineState {
  key: number;
  description: string;
  quantity: string;
  unitPrice: string;
  itemType: ItemType;
}

interface EditorState {
  siteId: string;
  clientId: string;
  currency: string;
  amountType: 'gross' | 'net';
  lines: LineState[];
  periodStart: string;
  periodEnd: string;
  dueMode: 'terms' | 'date';
  paymentTermsDays: string;
  dueDate: string;
  notes: string;
}

let lineKeys = 0;
const newLine = (): LineState => ({
  key: ++lineKeys,
  description: '',
  quantity: '1',
  unitPrice: '',
  itemType: 'service',
});

function stateOf(invoice: Invoice | undefined, clientId: string | undefined): EditorState {
  const digits = (currency: string) =>
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const currency = invoice?.currency ?? 'EUR';
  return {
    siteId: invoice?.siteId ?? '',
    clientId: invoice?.clientId ?? clientId ?? '',
    currency,
    amountType: invoice?.items[0]?.amountType ?? 'gross',
    lines: invoice?.items.map((i) => ({
      key: ++lineKeys,
      description: i.description,
      quantity: String(i.quantity),
      unitPrice: (i.unitPrice / 10 ** digits(currency)).toFixed(digits(currency)),
      itemType: i.itemType,
    })) ?? [newLine()],
    periodStart: invoice?.servicePeriod?.start ?? '',
    periodEnd: invoice?.servicePeriod?.end ?? '',
    dueMode: invoice?.dueDate && invoice.paymentTermsDays === null ? 'date' : 'terms',
    paymentTermsDays: String(invoice?.paymentTermsDays ?? 14),
    dueDate: invoice?.dueDate ?? '',
    notes: invoice?.notes ?? '',
  };
}

/** The body of a create, an update or a tax preview; null while a line is not yet an amount. */
function inputOf(s: EditorState, siteId: string | undefined): InvoiceInput | null {
  if (!s.clientId || !siteId) return null;
  const items: InvoiceInput['items'] = [];
  for (const l of s.lines) {
    const unitPrice = parseAmount(l.unitPrice, s.currency);
    const quantity = Number(l.quantity.replace(',', '.'));
    if (!l.description.trim() || unitPrice === null || !(quantity > 0)) return null;
    items.push({
      description: l.description.trim(),
      quantity,
      unitPrice,
      amountType: s.amountType,
      itemType: l.itemType,
    });
  }
  if (items.length === 0) return null;
  const terms = Number(s.paymentTermsDays);
  return {
    siteId,
    clientId: s.clientId,
    currency: s.currency,
    items,
    ...(s.periodStart && s.periodEnd ? { servicePeriod: { start: s.periodStart, end: s.periodEnd } } : {}),
    ...(s.dueMode === 'date' && s.dueDate ? { dueDate: s.dueDate } : {}),
    ...(s.dueMode === 'terms' && Number.isInteger(terms) && terms >= 0 ? { paymentTermsDays: terms } : {}),
    ...(s.notes.trim() ? { notes: s.notes.trim() } : {}),
  };
}

/** The draft editor: client, lines, service period, due date or terms, notes; the tax computed live by the API. */
export function InvoiceEditor({ invoice, clientId }: { invoice?: Invoice; clientId?: string | undefined }) {
  const { t, locale } = useI18n();
  const navigate = useNavigate();
  const sites = useSites();
  const [s, set, setS] = useFields<EditorState>(() => stateOf(invoice, clientId));
  const setLine = (key: number, patch: Partial<LineState>) =>
    setS((prev) => ({ ...prev, lines: prev.lines.map((l) => (l.key === key ? { ...l, ...patch } : l)) }));
  const siteId = s.siteId || sites.data?.items[0]?.id;
  const body = inputOf(s, siteId);
  const settled = useDebounced(body, 350);
  const { organization } = useMember();
  const preview = useQuery({
    queryKey: [organization.id, 'preview-tax', settled],
    enabled: settled !== null,
    placeholderData: keepPreviousData,
    queryFn: async () => {
      if (!settled) throw new Error('no draft');
      const { siteId: site, clientId: client, currency, items, servicePeriod } = settled;
      return must(
        await api.POST('/api/v1/invoices/preview-tax', {
          body: { siteId: site, clientId: client, currency, items, ...(servicePeriod ? { servicePeriod } : {}) },
        }),
      );
    },
  });
  const save = useOrgMutation(
    async () => {
      if (!body) throw new Error(t('invoices.incomplete'));
      return invoice
        ? must(await api.PUT('/api/v1/invoices/{id}', { params: { path: { id: invoice.id } }, body }))
        : must(await api.POST('/api/v1/invoices', { body }));
    },
    ['invoices'],
    (saved) => {
      if (!invoice) void navigate({ to: '/invoices/$id', params: { id: saved.id } });
    },
  );
  const current = settled !== null && body !== null && JSON.stringify(settled) === JSON.stringify(body);
  return (
    <div className="invoice-editor">
      <GridForm
        id="invoice-form"
        label={invoice ? t('invoices.editDraft') : t('invoices.newDraft')}
        submit={t('invoices.saveDraft')}
        write={save}
      >
        <ClientPicker id="inv-client" value={s.clientId} onChange={set('clientId')} />
        {(sites.data?.items.length ?? 0) > 1 && (
          <SelectField
            id="inv-site"
            label={t('checkouts.site')}
            value={siteId ?? ''}
            onChange={set('siteId')}
            options={sites.data?.items.map((x) => [x.id, x.name] as const) ?? []}
          />
        )}
        <SelectField
          id="inv-currency"
          label={t('checkouts.currency')}
          value={s.currency}
          onChange={set('currency')}
          options={['EUR', 'USD', 'GBP', 'CHF'].map((c) => [c, c] as const)}
        />
        <SelectField
          id="inv-amountType"
          label={t('invoices.prices')}
          value={s.amountType}
          onChange={set('amountType')}
          options={[
            ['gross', t('invoices.pricesGross')],
            ['net', t('invoices.pricesNet')],
          ]}
        />
        <fieldset className="lines">
          <legend>{t('invoices.lines')}</legend>
          {s.lines.map((l, n) => (
            <div className="line" key={l.key} data-testid="line">
              <TextField
                id={`line-${n}-description`}
                label={t('invoices.description')}
                value={l.description}
                onChange={(v) => setLine(l.key, { description: v })}
              />
              <SelectField
                id={`line-${n}-itemType`}
                label={t('invoices.itemType')}
                value={l.itemType}
                onChange={(v) => setLine(l.key, { itemType: v })}
                options={ITEM_TYPES.map((x) => [x, t(`itemType.${x}`)] as const)}
              />
              <TextField
                id={`line-${n}-quantity`}
                label={t('checkouts.quantity')}
                value={l.quantity}
                onChange={(v) => setLine(l.key, { quantity: v })}
              />
              <TextField
                id={`line-${n}-unitPrice`}
                label={t('invoices.unitPrice', { currency: s.currency })}
                value={l.unitPrice}
                onChange={(v) => setLine(l.key, { unitPrice: v })}
              />
              {s.lines.length > 1 && (
                <SecondaryButton
                  onClick={() => setS((prev) => ({ ...prev, lines: prev.lines.filter((x) => x.key !== l.key) }))}
                >
                  {t('invoices.removeLine', { n: n + 1 })}
                </SecondaryButton>
              )}
            </div>
          ))}
          <SecondaryButton onClick={() => setS((prev) => ({ ...prev, lines: [...prev.lines, newLine()] }))}>
            {t('invoices.addLine')}
          </SecondaryButton>
        </fieldset>
        {(['periodStart', 'periodEnd'] as const).map((k) => (
          <TextField key={k} id={`inv-${k}`} label={t(`invoices.${k}`)} value={s[k]} onChange={set(k)} type="date" />
        ))}
        <SelectField
          id="inv-dueMode"
          label={t('invoices.dueMode')}
          value={s.dueMode}
          onChange={set('dueMode')}
          options={[
            ['terms', t('invoices.paymentTerms')],
            ['date', t('invoices.dueDate')],
          ]}
        />
        {s.dueMode === 'terms' ? (
          <TextField
            id="inv-terms"
            label={t('invoices.termsDays')}
            type="number"
            value={s.paymentTermsDays}
            onChange={set('paymentTermsDays')}
          />
        ) : (
          <TextField
            id="inv-dueDate"
            label={t('invoices.dueDate')}
            value={s.dueDate}
            onChange={set('dueDate')}
            type="date"
          />
        )}
        <TextField id="inv-notes" label={t('invoices.notes')} value={s.notes} onChange={set('notes')} />
      </GridForm>
      <Section title={t('invoices.taxPreview')} id="tax-preview">
        {body === null && <p className="muted">{t('invoices.previewNeeds')}</p>}
        {preview.isError && <ErrorNote error={preview.error} />}
        {body !== null && preview.data && (
          <div
            aria-live="polite"
            aria-busy={!current || preview.isFetching}
            data-testid="tax-preview"
            data-current={current && !preview.isFetching}
          >
            <Facts
              rows={[
                [
                  t('invoices.net'),
                  <span data-testid="preview-net">{money(preview.data.totalNet, preview.data.currency, locale)}</span>,
                ],
                ...preview.data.taxBreakdown.map(
                  (b) =>
                    [
                      t('invoices.vatAt', { rate: b.taxRate, code: b.taxRateCode }),
                      <span data-testid="preview-vat" data-rate={b.taxRate}>
                        {money(b.taxAmount, preview.data.currency, locale)}
                      </span>,
                    ] as [string, ReactNode],
                ),
                [
                  t('invoices.gross'),
                  <span data-testid="preview-gross">
                    {money(preview.data.totalGross, preview.data.currency, locale)}
                  </span>,
                ],
                [t('invoices.buyerCountry'), t(`buyerType.${preview.data.buyer.type}`)],
              ]}
            />
          </div>
        )}
      </Section>
    </div>
  );
}

/** A new draft, its client given by the address (from a client's page) or chosen. */
export function NewInvoice({ clientId }: { clientId?: string | undefined }) {
  const { t } = useI18n();
  return (
    <>
      <BackLink to="/invoices" label={t('invoices.back')} />
      <h1>{t('invoices.newDraft')}</h1>
      <InvoiceEditor clientId={clientId} />
    </>
  );
}

const EINVOICE_DOWNLOADS = {
  xrechnung: { path: '/api/v1/invoices/{id}/xml', label: 'XRechnung', ext: 'xml' },
  peppol: { path: '/api/v1/invoices/{id}/xml/peppol', label: 'Peppol BIS', ext: 'xml' },
  zugferd: { path: '/api/v1/invoices/{id}/pdf/zugferd', label: 'ZUGFeRD', ext: 'pdf' },
} as const;
const isEInvoiceFormat = (f: string): f is keyof typeof EINVOICE_DOWNLOADS => f in EINVOICE_DOWNLOADS;

/** An invoice: the draft editor and issue, or the issued invoice with downloads, e-mail, void and its credit notes. */
export function InvoiceScreen({ id }: { id: string }) {
  const { t, locale } = useI18n();
  const { organization, role } = useMember();
  const zone = useOrgTimeZone();
  const invoice = useQuery({
    queryKey: [organization.id, 'invoices', 'one', id],
    queryFn: async () => must(await api.GET('/api/v1/invoices/{id}', { params: { path: { id } } })),
    // While an e-mail is queued, follow it until the SMTP server answered.
    refetchInterval: (q) => (q.state.data?.emails?.some((e) => e.state === 'queued') ? 1000 : false),
  });
  const issue = useOrgMutation(
    async () => must(await api.POST('/api/v1/invoices/{id}/issue', { params: { path: { id } } })),
    ['invoices'],
  );
  return (
    <Loaded q={invoice}>
      {(inv) => (
        <>
          <BackLink to="/invoices" label={t('invoices.back')} />
          <h1>
            {inv.number ? t('invoices.heading', { number: inv.number }) : t('invoices.draftHeading')}{' '}
            <InvoiceStatusBadge status={inv.status} />
          </h1>
          <Section title={t('invoices.details')} id="invoice-details">
            <Facts
              rows={[
                [
                  t('invoices.number'),
                  <span data-testid="invoice-number">{inv.number ?? inv.proformaNumber ?? '—'}</span>,
                ],
                [
                  t('invoices.client'),
                  <Link to="/clients/$id" params={{ id: inv.clientId }}>
                    {inv.snapshot?.buyer.name ?? <ClientName id={inv.clientId} />}
                  </Link>,
                ],
                [t('invoices.issueDate'), day(inv.issueDate, locale)],
                [t('invoices.dueDate'), day(inv.dueDate, locale)],
                [t('invoices.net'), money(inv.totals.net, inv.currency, locale)],
                [t('invoices.vat'), money(inv.totals.tax, inv.currency, locale)],
                [
                  t('invoices.gross'),
                  <span data-testid="invoice-gross">{money(inv.totals.gross, inv.currency, locale)}</span>,
                ],
                [t('invoices.due'), money(inv.amountDue, inv.currency, locale)],
                ...(inv.voidedAt
                  ? [[t('invoices.voidedAt'), dateTime(inv.voidedAt, zone, locale)] as [string, string]]
                  : []),
              ]}
            />
            {/* Downloads are invoice:execute, which a Viewer does not hold. */}
            {can(role, 'write') && <DownloadButtons invoice={inv} />}
            {inv.status === 'draft' && can(role, 'write') && (
              <div className="row-actions">
                <button
                  type="button"
                  id="issue-invoice"
                  onClick={() => issue.mutate(undefined)}
                  disabled={issue.isPending}
                >
                  {t('invoices.issue')}
                </button>
              </div>
            )}
            {issue.isError && <ErrorNote error={issue.error} />}
            {can(role, 'write') && (
              <p>
                <Link to="/recurring/new" search={{ invoiceId: inv.id }} id="make-recurring">
                  {t('recurring.fromInvoice')}
                </Link>
              </p>
            )}
          </Section>
          {inv.status === 'draft' ? (
            can(role, 'write') ? (
              <>
                <Section title={t('invoices.editDraft')} id="edit-draft">
                  <InvoiceEditor invoice={inv} key={inv.updatedAt} />
                </Section>
                <ProformaPreview invoice={inv} />
              </>
            ) : (
              <Lines invoice={inv} />
            )
          ) : (
            <>
              <Lines invoice={inv} />
              <DocumentEmails
                sectionId="invoice-email"
                prefix="em"
                testId="emails"
                emails={inv.emails ?? []}
                send={async (body) =>
                  must(await api.POST('/api/v1/invoices/{id}/send-email', { params: { path: { id: inv.id } }, body }))
                }
                refresh={['invoices', 'one', inv.id]}
              />
              <PaymentLinks invoice={inv} />
              {inv.status !== 'void' && can(role, 'write') && <CorrectInvoice invoice={inv} />}
              {inv.status !== 'void' && can(role, 'admin') && <VoidInvoice invoice={inv} />}
              <CreditNotes ids={inv.creditNoteIds} />
            </>
          )}
          <ResourceHistory resource="invoice" id={inv.id} />
        </>
      )}
    </Loaded>
  );
}

function Lines({ invoice }: { invoice: Invoice }) {
  const { t, locale } = useI18n();
  const lines = invoice.taxCalculation?.lines ?? [];
  return (
    <Section title={t('invoices.lines')} id="invoice-lines">
      <DataTable
        rows={lines}
        rowKey={(l) => String(l.index)}
        columns={[
          { header: t('invoices.description'), cell: (l) => l.name },
          { header: t('invoices.itemType'), cell: (l) => t(`itemType.${l.itemType}`) },
          { header: t('checkouts.quantity'), num: true, cell: (l) => l.quantity },
          { header: t('invoices.net'), num: true, cell: (l) => money(l.net, invoice.currency, locale) },
          { header: t('invoices.rate'), num: true, cell: (l) => `${l.taxRate} %` },
          { header: t('invoices.vat'), num: true, cell: (l) => money(l.tax, invoice.currency, locale) },
          { header: t('invoices.gross'), num: true, cell: (l) => money(l.gross, invoice.currency, locale) },
        ]}
      />
    </Section>
  );
}

/** The PDF (a draft's pro forma) and each e-invoice format the organization enables. */
function DownloadButtons({ invoice }: { invoice: Invoice }) {
  const { t } = useI18n();
  const settings = useOrgQuery(['settings', 'invoicing'], async () =>
    must(await api.GET('/api/v1/organizations/settings/invoicing')),
  );
  const { organization } = useMember();
  const queries = useQueryClient();
  const get = useMutation({
    mutationFn: (a: { path: Parameters<typeof download>[0]; name: string }) => download(a.path, invoice.id, a.name),
    // A generated e-invoice (delivered or refused) records its validation report.
    onSettled: () =>
      queries.invalidateQueries({ queryKey: [organization.id, 'invoice', invoice.id, 'einvoice-reports'] }),
  });
  const base = invoice.number ?? invoice.proformaNumber ?? 'invoice';
  const e = settings.data?.eInvoice;
  const formats = invoice.status !== 'draft' && e?.enabled ? e.allowedFormats.filter(isEInvoiceFormat) : [];
  return (
    <div className="delivery">
      <div className="row-actions">
        <SecondaryButton
          data-download="pdf"
          onClick={() => get.mutate({ path: '/api/v1/invoices/{id}/pdf', name: `${base}.pdf` })}
        >
          {invoice.status === 'draft' ? t('invoices.downloadProforma') : t('invoices.downloadPdf')}
        </SecondaryButton>
        {formats.map((f) => (
          <button
            key={f}
            type="button"
            className="secondary"
            data-download={f}
            onClick={() =>
              get.mutate({ path: EINVOICE_DOWNLOADS[f].path, name: `${base}-${f}.${EINVOICE_DOWNLOADS[f].ext}` })
            }
          >
            {t('invoices.downloadFormat', { format: EINVOICE_DOWNLOADS[f].label })}
          </button>
        ))}
      </div>
      {get.isError && <ErrorNote error={get.error} />}
      {formats.length > 0 && <EInvoiceReports invoiceId={invoice.id} />}
    </div>
  );
}

/** The validation report the product recorded for each e-invoice format of the invoice (latest per format). */
function EInvoiceReports({ invoiceId }: { invoiceId: string }) {
  const { t, locale } = useI18n();
  const zone = useOrgTimeZone();
  const q = useOrgQuery(['invoice', invoiceId, 'einvoice-reports'], async () =>
    must(await api.GET('/api/v1/invoices/{id}/einvoice-reports', { params: { path: { id: invoiceId } } })),
  );
  if (!q.data || q.data.items.length === 0) return null;
  return (
    <div data-testid="einvoice-reports">
      <DataTable
        caption={t('invoices.einvoiceReports')}
        rows={q.data.items}
        rowKey={(r) => r.format}
        columns={[
          { header: t('invoices.einvoiceFormat'), cell: (r) => EINVOICE_DOWNLOADS[r.format].label },
          {
            header: t('invoices.einvoiceResult'),
            cell: (r) => (
              <span className={`badge ${r.valid ? 'ok' : 'bad'}`} data-format={r.format} data-valid={String(r.valid)}>
                {r.valid ? t('invoices.einvoiceValid') : t('invoices.einvoiceInvalid')}
              </span>
            ),
          },
          { header: t('invoices.einvoiceErrors'), num: true, cell: (r) => r.errors },
          { header: t('invoices.einvoiceWarnings'), num: true, cell: (r) => r.warnings },
          { header: t('invoices.einvoiceChecked'), cell: (r) => dateTime(r.checkedAt, zone, locale) },
          {
            header: t('invoices.einvoiceFindings'),
            cell: (r) =>
              r.findings.length === 0
                ? '—'
                : r.findings
                    .slice(0, 3)
                    .map((f) => `${f.rule}${f.field ? ` (${f.field})` : ''}: ${f.message}`)
                    .join('; ') + (r.findings.length > 3 ? ` (+${r.findings.length - 3})` : ''),
          },
        ]}
      />
    </div>
  );
}

/** Void (Admin): a confirmation that says what the credit note will be, then the void. */
function VoidInvoice({ invoice }: { invoice: Invoice }) {
  const { t, locale } = useI18n();
  return (
    <ConfirmAction
      id="void-invoice"
      prefix="void"
      title={t('invoices.void')}
      question={t('invoices.voidConfirm', {
        number: invoice.number ?? '',
        gross: money(invoice.totals.gross, invoice.currency, locale),
      })}
      questionTestId="void-confirmation"
      reasonLabel={t('invoices.voidReason')}
      reasonMax={500}
      confirmLabel={t('invoices.voidAndCredit')}
      run={async (body) =>
        must(await api.POST('/api/v1/invoices/{id}/void', { params: { path: { id: invoice.id } }, body }))
      }
      refresh={['invoices']}
    />
  );
}

function CreditNotes({ ids }: { ids: string[] }) {
  const { t } = useI18n();
  if (ids.length === 0) return null;
  return (
    <Section title={t('invoices.creditNotes')} id="credit-notes">
      <ul>
        {ids.map((id) => (
          <CreditNote key={id} id={id} />
        ))}
      </ul>
    </Section>
  );
}

function CreditNote({ id }: { id: string }) {
  const { t, locale } = useI18n();
  const note = useOrgQuery(['credit-notes', id], async () =>
    must(await api.GET('/api/v1/credit-notes/{id}', { params: { path: { id } } })),
  );
  const get = useMutation({ mutationFn: (name: string) => download('/api/v1/credit-notes/{id}/pdf', id, name) });
  return (
    <li>
      <Loaded q={note}>
        {(n) => (
          <>
            <strong data-testid="credit-note-number">{n.number}</strong> · {day(n.issueDate, locale)} ·{' '}
            {money(n.totals.gross, n.currency, locale)} · {n.reason ?? n.kind}{' '}
            <button type="button" className="secondary" onClick={() => get.mutate(`${n.number}.pdf`)}>
              {t('invoices.downloadPdf')}
            </button>
            {get.isError && <ErrorNote error={get.error} />}
          </>
        )}
      </Loaded>
    </li>
  );
}

/** A draft's client by its current name (an issued invoice names the buyer from its snapshot). */
function ClientName({ id }: { id: string }) {
  const { t } = useI18n();
  const client = useOrgQuery(['clients', 'one', id], async () =>
    must(await api.GET('/api/v1/clients/{id}', { params: { path: { id } } })),
  );
  return <>{client.data?.name ?? t('invoices.openClient')}</>;
}
