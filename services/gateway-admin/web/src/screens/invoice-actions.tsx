import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ApiError, must, type paths } from '../api';
import { CopyButton, GridForm, TextField } from '../forms';
import { dateTime, money, parseAmount } from '../format';
import { useI18n } from '../i18n';
import type { Invoice } from '../invoicing';
import { can } from '../session';
import { ConfirmDialog } from '../confirm';
import { DataTable } from '../table';
import { ErrorNote, Section, useMember, useOrgMutation, useOrgTimeZone } from '../ui';

/** Limits of a payment link (interface specification, Limits). */
const LINK_MIN_AMOUNT = 50;
const LINK_MIN_HOURS = 1;
const LINK_MAX_HOURS = 3120;

/** Payment links of an issued invoice (amount within the limits, expiry), each with a copy button; and its payments. */
export function PaymentLinks({ invoice }: { invoice: Invoice }) {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const open = invoice.status === 'issued' || invoice.status === 'partially_paid';
  const [amount, setAmount] = useState('');
  const [hours, setHours] = useState('');
  const create = useOrgMutation(async () => {
    const minor = amount.trim() ? parseAmount(amount, invoice.currency) : null;
    if (amount.trim() && (minor === null || minor < LINK_MIN_AMOUNT || minor > invoice.amountDue))
      throw new Error(
        t('links.amountRange', {
          min: money(LINK_MIN_AMOUNT, invoice.currency, locale),
          max: money(invoice.amountDue, invoice.currency, locale),
        }),
      );
    const h = Number(hours);
    if (hours.trim() && !(Number.isInteger(h) && h >= LINK_MIN_HOURS && h <= LINK_MAX_HOURS))
      throw new Error(t('links.hoursRange', { min: LINK_MIN_HOURS, max: LINK_MAX_HOURS }));
    return must(
      await api.POST('/api/v1/invoices/{id}/payment-checkout', {
        params: { path: { id: invoice.id } },
        body: { ...(minor !== null ? { amount: minor } : {}), ...(hours.trim() ? { expireInHours: h } : {}) },
      }),
    );
  }, ['invoices', 'one', invoice.id]);
  const links = [...invoice.paymentLinks].reverse();
  return (
    <Section title={t('links.title')} id="payment-links">
      {open && can(role, 'write') && (
        <GridForm id="payment-link-form" label={t('links.create')} submit={t('links.create')} write={create}>
          <TextField
            id="pl-amount"
            label={t('links.amount', { currency: invoice.currency })}
            hint={t('links.amountHint', {
              min: money(LINK_MIN_AMOUNT, invoice.currency, locale),
              max: money(invoice.amountDue, invoice.currency, locale),
            })}
            value={amount}
            onChange={setAmount}
          />
          <TextField
            id="pl-hours"
            label={t('links.hours')}
            hint={t('links.hoursHint', { min: LINK_MIN_HOURS, max: LINK_MAX_HOURS })}
            type="number"
            value={hours}
            onChange={setHours}
          />
        </GridForm>
      )}
      <DataTable
        testId="payment-links"
        rows={links}
        rowKey={(l) => l.checkoutId}
        empty={t('links.none')}
        columns={[
          { header: t('links.link'), cell: (l) => <code data-testid="payment-link-url">{l.paymentUrl}</code> },
          { header: t('checkouts.amount'), num: true, cell: (l) => money(l.amount, invoice.currency, locale) },
          { header: t('links.expires'), cell: (l) => dateTime(l.expiresAt, zone, locale) },
          { header: t('payments.created'), cell: (l) => dateTime(l.createdAt, zone, locale) },
          {
            header: t('links.copy'),
            srOnly: true,
            cell: (l) => <CopyButton text={l.paymentUrl} label={t('links.copy')} />,
          },
        ]}
      />
      <h3>{t('links.payments')}</h3>
      <DataTable
        testId="invoice-payments"
        rows={invoice.payments}
        rowKey={(p) => `${p.transactionId}-${p.paidAt}`}
        empty={t('links.noPayments')}
        columns={[
          {
            header: t('links.transaction'),
            cell: (p) => (
              <Link to="/payments/$id" params={{ id: p.transactionId }}>
                {p.transactionId}
              </Link>
            ),
          },
          { header: t('checkouts.amount'), num: true, cell: (p) => money(p.amount, invoice.currency, locale) },
          { header: t('links.paidAt'), cell: (p) => dateTime(p.paidAt, zone, locale) },
        ]}
      />
    </Section>
  );
}

type Buyer = NonNullable<Invoice['snapshot']>['buyer'];
interface BuyerForm {
  name: string;
  email: string;
  street: string;
  postalCode: string;
  city: string;
  country: string;
  taxId: string;
}
const FIELDS: ReadonlyArray<keyof BuyerForm> = ['name', 'email', 'street', 'postalCode', 'city', 'country', 'taxId'];

function formOf(b: Buyer): BuyerForm {
  return {
    name: b.name,
    email: b.email ?? '',
    street: b.address?.street ?? '',
    postalCode: b.address?.postalCode ?? '',
    city: b.address?.city ?? '',
    country: b.address?.country ?? '',
    taxId: b.taxId ?? '',
  };
}

type Changes = NonNullable<
  paths['/api/v1/invoices/{id}/correct']['post']['requestBody']
>['content']['application/json']['changes']['client'];
const ADDRESS: ReadonlyArray<keyof BuyerForm> = ['street', 'postalCode', 'city', 'country'];

/** The buyer fields that differ from the snapshot, as the correction's `changes.client`. */
function changesOf(before: BuyerForm, after: BuyerForm): Changes | null {
  const c: Changes = {};
  const trim = (k: keyof BuyerForm) => after[k].trim();
  if (trim('name') !== before.name) c.name = trim('name');
  if (trim('email') !== before.email) c.email = trim('email') || null;
  if (ADDRESS.some((k) => trim(k) !== before[k]))
    c.address = trim('street')
      ? {
          street: trim('street'),
          postalCode: trim('postalCode'),
          city: trim('city'),
          country: trim('country').toUpperCase(),
        }
      : null;
  if (trim('taxId') !== before.taxId) c.taxId = trim('taxId') || null;
  return Object.keys(c).length > 0 ? c : null;
}

/** Correct the buyer on an issued invoice: the form, then what changes (before and after), then confirm. */
export function CorrectInvoice({ invoice }: { invoice: Invoice }) {
  const { t } = useI18n();
  const buyer = invoice.snapshot?.buyer;
  const [form, setForm] = useState<BuyerForm | null>(null);
  const [reason, setReason] = useState('');
  const [review, setReview] = useState(false);
  const run = useOrgMutation(
    async (changes: Changes) =>
      must(
        await api.POST('/api/v1/invoices/{id}/correct', {
          params: { path: { id: invoice.id } },
          body: { reason: reason.trim(), changes: { client: changes } },
        }),
      ),
    ['invoices'],
    () => {
      setForm(null);
      setReview(false);
      setReason('');
    },
  );
  if (!buyer) return null;
  const before = formOf(buyer);
  const changes = form ? changesOf(before, form) : null;
  const label: Record<keyof BuyerForm, string> = {
    name: t('clients.name'),
    email: t('payments.email'),
    street: t('clients.street'),
    postalCode: t('clients.postalCode'),
    city: t('clients.city'),
    country: t('clients.country'),
    taxId: t('clients.taxId'),
  };
  return (
    <Section title={t('correct.title')} id="correct-invoice">
      {!form ? (
        <>
          <p className="muted">{t('correct.intro')}</p>
          <button type="button" id="correct-invoice-button" onClick={() => setForm(before)}>
            {t('correct.start')}
          </button>
        </>
      ) : !review ? (
        <GridForm
          id="correct-form"
          label={t('correct.title')}
          submit={t('correct.review')}
          onSubmit={() => setReview(true)}
        >
          {FIELDS.map((k) => (
            <TextField
              key={k}
              id={`co-${k}`}
              label={label[k]}
              value={form[k]}
              onChange={(v) => setForm({ ...form, [k]: v })}
            />
          ))}
          <TextField
            id="co-reason"
            label={t('correct.reason')}
            value={reason}
            onChange={setReason}
            maxLength={500}
            required
          />
        </GridForm>
      ) : (
        <ConfirmDialog
          questionId="correct-q"
          question={changes ? t('correct.confirm', { number: invoice.number ?? '' }) : t('correct.nothing')}
          confirm={
            changes && {
              id: 'correct-confirm',
              label: t('correct.submit'),
              onClick: () => run.mutate(changes),
              disabled: run.isPending || !reason.trim(),
            }
          }
          back={{ label: t('correct.back'), onClick: () => setReview(false) }}
          attempt={run}
        >
          {changes && (
            <DataTable
              testId="correction-diff"
              caption={t('correct.changes')}
              rows={FIELDS.filter((k) => form[k].trim() !== before[k])}
              rowKey={(k) => k}
              columns={[
                { header: t('correct.field'), cell: (k) => label[k] },
                { header: t('correct.before'), cell: (k) => before[k] || '—' },
                { header: t('correct.after'), cell: (k) => form[k].trim() || '—' },
              ]}
            />
          )}
        </ConfirmDialog>
      )}
      {invoice.corrections.length > 0 && (
        <DataTable
          testId="corrections"
          caption={t('correct.history')}
          rows={invoice.corrections}
          rowKey={(c) => c.at}
          columns={[
            { header: t('payments.created'), cell: (c) => c.at.slice(0, 16).replace('T', ' ') },
            { header: t('correct.reason'), cell: (c) => c.reason },
          ]}
        />
      )}
    </Section>
  );
}

/** The draft's pro forma PDF inline: fetched through the signed-in client, again whenever the draft is saved. */
export function ProformaPreview({ invoice }: { invoice: Invoice }) {
  const { t } = useI18n();
  const { organization } = useMember();
  const pdf = useQuery({
    queryKey: [organization.id, 'invoices', 'one', invoice.id, 'proforma', invoice.updatedAt],
    // One PDF per saved version of the draft: a save changes updatedAt, hence the key.
    staleTime: Infinity,
    queryFn: async () => {
      const res = await api.GET('/api/v1/invoices/{id}/pdf', {
        params: { path: { id: invoice.id } },
        parseAs: 'blob',
      });
      if (!res.response.ok || !(res.data instanceof Blob))
        throw new ApiError(res.response.status, t('proforma.failed'));
      return res.data;
    },
  });
  const [shown, setShown] = useState<{ url: string; blob: Blob } | null>(null);
  useEffect(() => {
    if (!pdf.data) return;
    const blob = pdf.data;
    const url = URL.createObjectURL(blob);
    setShown({ url, blob });
    return () => URL.revokeObjectURL(url);
  }, [pdf.data]);
  return (
    <Section title={t('proforma.title')} id="proforma">
      {pdf.isError && <ErrorNote error={pdf.error} />}
      {shown && (
        <iframe
          className="proforma"
          title={t('proforma.frame', { number: invoice.proformaNumber ?? '' })}
          src={shown.url}
          data-testid="proforma-preview"
          data-version={invoice.updatedAt}
          data-type={shown.blob.type}
          data-bytes={shown.blob.size}
          aria-busy={pdf.isFetching}
        />
      )}
    </Section>
  );
}
