import { useEffect, useState } from 'react';
import { Link } from '@tanstack/react-router';
import { api, saveBlobAnswer, type paths } from './api';
import { count, dateTime, day, money } from './format';
import { GridForm, TextField } from './forms';
import { useI18n, type Translate } from './i18n';
import { withRecordLink, type RecordLink } from './record-link';
import { DataTable, type Column } from './table';
import { can } from './session';
import { Loaded, Section, useMember, useOrgMutation, useOrgTimeZone } from './ui';

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

/** Previous / next buttons of a server-side paged list with "page x of y". */
export function Pager({
  page,
  limit,
  total,
  lowerBound,
  onPage,
  of = 'invoices',
  testId,
}: {
  page: number;
  limit: number;
  total: number;
  /** The API stopped counting (`totalIsLowerBound`): there are more than `total - 1` and a next page. */
  lowerBound?: boolean | undefined;
  onPage: (page: number) => void;
  /** What the total counts: entries of any kind ("in all"), or transactions. */
  of?: 'invoices' | 'payments';
  /** The test id of "page x of y". */
  testId?: string | undefined;
}) {
  const { t, locale } = useI18n();
  const pages = Math.max(1, Math.ceil(total / limit));
  const text = lowerBound
    ? t(`${of}.pageOfMore`, {
        page,
        pages: count(Math.floor((total - 1) / limit), locale),
        total: count(total - 1, locale),
      })
    : t(`${of}.page`, { page, pages, total });
  return (
    <nav className="pager" aria-label={text}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('payments.previous')}
      </button>
      <span data-testid={testId}>{text}</span>
      <button type="button" className="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('payments.next')}
      </button>
    </nav>
  );
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

interface PagedTableProps<T> {
  q: {
    data?: { items: T[]; total: number; totalIsLowerBound?: boolean | undefined } | undefined;
    error: unknown;
    isPending: boolean;
    isError: boolean;
    refetch: () => unknown;
  };
  page: number;
  limit: number;
  onPage: (page: number) => void;
  columns: ReadonlyArray<Column<T> | false>;
  /** The first column: each row's link to its own screen. */
  recordLink?: RecordLink<T>;
  testId: string;
  caption?: string;
  empty: string;
  /** The pager's wording and test id (an invoicing list's by default). */
  pager?: { of: 'invoices' | 'payments'; testId: string };
  /** A failed read offers to try again. */
  retry?: boolean;
}

/** One page of a list the server pages, with its pager. */
export function PagedTable<T extends { id: string }>({
  q,
  page,
  limit,
  onPage,
  pager,
  retry,
  recordLink,
  columns,
  ...table
}: PagedTableProps<T>) {
  return (
    <Loaded q={q} retry={retry ? () => void q.refetch() : undefined}>
      {(data) => (
        <>
          <DataTable rows={data.items} rowKey={(r) => r.id} columns={withRecordLink(recordLink, columns)} {...table} />
          <Pager
            page={page}
            limit={limit}
            total={data.total}
            lowerBound={data.totalIsLowerBound}
            onPage={onPage}
            {...pager}
          />
        </>
      )}
    </Loaded>
  );
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
