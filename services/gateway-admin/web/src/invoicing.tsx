import { useEffect, useState } from 'react';
import { Link } from '@tanstack/react-router';
import { api, saveBlobAnswer, type paths } from './api';
import { dateTime, day, money } from './format';
import { GridForm, TextField } from './forms';
import { useI18n, type Translate } from './i18n';
import { DataTable, type Column } from './table';
import { can } from './session';
import { Section, useMember, useOrgMutation, useOrgTimeZone } from './ui';

/** Shapes of the invoicing half, from the Admin API's OpenAPI document. */
export type Client = paths['/api/v1/clients/{id}']['get']['responses'][200]['content']['application/json'];
export type ClientInput = NonNullable<paths['/api/v1/clients']['post']['requestBody']>['content']['application/json'];
export type Invoice = paths['/api/v1/invoices/{id}']['get']['responses'][200]['content']['application/json'];
export type InvoiceInput = NonNullable<paths['/api/v1/invoices']['post']['requestBody']>['content']['application/json'];
export type InvoiceStatus = Invoice['status'];
export type ItemType = Invoice['items'][number]['itemType'];
export const INVOICE_STATUSES: readonly InvoiceStatus[] = ['draft', 'issued', 'partially_paid', 'paid', 'void'];
export const ITEM_TYPES: readonly ItemType[] = ['service', 'goods', 'digital_service', 'shipping'];

/** The value after it stayed unchanged for `ms` (typing settles before a request goes out). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

type DownloadPath =
  | '/api/v1/invoices/{id}/pdf'
  | '/api/v1/invoices/{id}/xml'
  | '/api/v1/invoices/{id}/xml/peppol'
  | '/api/v1/invoices/{id}/pdf/zugferd'
  | '/api/v1/credit-notes/{id}/pdf';

/**
 * Downloads a document of the API (signed-in call) as a file: the name the API gives in its
 * Content-Disposition, else `fallback`.
 */
export async function download(path: DownloadPath, id: string, fallback: string): Promise<void> {
  saveBlobAnswer(await api.GET(path, { params: { path: { id } }, parseAs: 'blob' }), fallback);
}

/** An invoice's status as a badge. */
export function InvoiceStatusBadge({ status }: { status: InvoiceStatus }) {
  const { t } = useI18n();
  return <span className={`badge invoice-${status}`}>{t(`invoiceStatus.${status}`)}</span>;
}

type InvoiceRow = Pick<
  Invoice,
  'id' | 'number' | 'proformaNumber' | 'status' | 'issueDate' | 'dueDate' | 'totals' | 'amountDue' | 'currency'
>;

/** The columns of an invoice list: number (a link), status, dates and amounts. */
export function invoiceColumns(t: Translate, locale: string): Array<Column<InvoiceRow>> {
  return [
    {
      header: t('invoices.number'),
      cell: (i) => (
        <Link to="/invoices/$id" params={{ id: i.id }}>
          {i.number ?? i.proformaNumber ?? t('invoices.draftNumber')}
        </Link>
      ),
    },
    { header: t('invoices.status'), cell: (i) => <InvoiceStatusBadge status={i.status} /> },
    { header: t('invoices.issueDate'), cell: (i) => day(i.issueDate, locale) },
    { header: t('invoices.dueDate'), cell: (i) => day(i.dueDate, locale) },
    { header: t('invoices.gross'), num: true, cell: (i) => money(i.totals.gross, i.currency, locale) },
    { header: t('invoices.due'), num: true, cell: (i) => money(i.amountDue, i.currency, locale) },
  ];
}

/** One send of a document by e-mail, as invoices and credit notes list them. */
export type DocumentEmail = NonNullable<Invoice['emails']>[number];

/**
 * Send an invoice or a credit note by e-mail (to the client's address unless another is given,
 * with an optional message), and the delivery state of every send. `prefix` names the form's
 * fields (`<prefix>-to`, `<prefix>-message`); `refresh` the reads a send makes stale.
 */
export function DocumentEmails({
  sectionId,
  prefix,
  testId,
  emails,
  send,
  refresh,
}: {
  sectionId: string;
  prefix: string;
  testId: string;
  emails: readonly DocumentEmail[];
  send: (body: { to?: string; message?: string }) => Promise<unknown>;
  refresh: readonly unknown[];
}) {
  const { t, locale } = useI18n();
  const { role } = useMember();
  const zone = useOrgTimeZone();
  const [to, setTo] = useState('');
  const [message, setMessage] = useState('');
  const sent = useOrgMutation(
    () => send({ ...(to.trim() ? { to: to.trim() } : {}), ...(message.trim() ? { message: message.trim() } : {}) }),
    refresh,
  );
  return (
    <Section title={t('invoices.email')} id={sectionId}>
      {can(role, 'write') && (
        <GridForm label={t('invoices.email')} submit={t('invoices.send')} write={sent}>
          <TextField
            id={`${prefix}-to`}
            label={t('invoices.emailTo')}
            hint={t('invoices.emailToHint')}
            type="email"
            value={to}
            onChange={setTo}
            plain
          />
          <TextField
            id={`${prefix}-message`}
            label={t('invoices.emailMessage')}
            value={message}
            onChange={setMessage}
          />
        </GridForm>
      )}
      <DataTable
        testId={testId}
        rows={emails}
        rowKey={(e) => e.emailId}
        empty={t('invoices.noEmails')}
        columns={[
          { header: t('payments.created'), cell: (e) => dateTime(e.at, zone, locale) },
          { header: t('invoices.emailTo'), cell: (e) => e.to.join(', ') },
          { header: t('invoices.emailSubject'), cell: (e) => e.subject },
          {
            header: t('invoices.emailState'),
            cell: (e) => (
              <span className={`badge email-${e.state}`} data-state={e.state}>
                {t(`emailState.${e.state}`)}
              </span>
            ),
          },
          { header: t('invoices.emailDetail'), cell: (e) => e.detail ?? '—' },
        ]}
      />
    </Section>
  );
}
