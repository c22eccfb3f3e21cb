import { useEffect, useState } from 'react';
import { api, ApiError, type paths } from './api';
import { useI18n } from './i18n';

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
  onPage,
}: {
  page: number;
  limit: number;
  total: number;
  onPage: (page: number) => void;
}) {
  const { t } = useI18n();
  const pages = Math.max(1, Math.ceil(total / limit));
  const text = t('payments.page', { page, pages, total });
  return (
    <nav className="pager" aria-label={text}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('payments.previous')}
      </button>
      <span>{text}</span>
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
  const res = await api.GET(path, { params: { path: { id } }, parseAs: 'blob' });
  if (!res.response.ok || !(res.data instanceof Blob)) {
    const body: unknown = res.error;
    const message =
      typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string'
        ? body.error
        : `HTTP ${res.response.status}`;
    throw new ApiError(res.response.status, message);
  }
  const disposition = res.response.headers.get('content-disposition') ?? '';
  const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallback;
  const url = URL.createObjectURL(res.data);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A labelled checkbox. */
export function CheckField({
  id,
  label,
  checked,
  onChange,
}: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <div>
      <span className="check">
        <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
        <label htmlFor={id}>{label}</label>
      </span>
    </div>
  );
}

/** An invoice's status as a badge. */
export function InvoiceStatusBadge({ status }: { status: InvoiceStatus }) {
  const { t } = useI18n();
  return <span className={`badge invoice-${status}`}>{t(`invoiceStatus.${status}`)}</span>;
}
