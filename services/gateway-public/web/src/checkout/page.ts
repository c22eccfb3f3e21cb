// The hosted checkout page's elements, address, messages and error wording, shared by its modules.
import { apiBase, type ApiAnswer, type ApiError } from '../lib/api';
import { moneyFormatter } from '../lib/format';
import { el, messageBox, show, text } from '../lib/dom';
import { readMessages, translator } from '../lib/i18n';

/** The Main Backend's public checkout view (docs/main-backend.md). */
export interface CheckoutView {
  id: string;
  currency: string;
  amount: number;
  status: string;
  lineItems: { name: string; quantity: number; unitAmount: number }[];
  providers: string[];
  branding: { logo?: string; primaryColor?: string };
  expiresAt: string;
  checkoutSettings: { vatIdValidation: string };
}

export interface TaxPreview {
  taxIncluded: boolean;
  totalNet: number;
  totalTax: number;
  totalGross: number;
  taxBreakdown: { taxRate: number; taxRateCode: string; taxableBase: number; taxAmount: number }[];
}

export interface StatusView {
  status: number;
  amount: number;
  currency: string;
  returnUrl?: string;
  cancelUrl?: string;
}

export const BLOCK_CODES = new Set(['CHECKOUT_BLOCKED_BY_DISPUTE', 'CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD']);
export const doc = document;
export const lang = doc.documentElement.lang || 'en';
export const t = translator(readMessages(doc));
export const money = moneyFormatter(lang);

export { el, show, text };

export const ui = {
  main: el('app'),
  logo: el<HTMLImageElement>('logo'),
  notice: messageBox('notice'),
  summary: el('summary'),
  items: el('items'),
  net: el('net'),
  taxLabel: el('tax-label'),
  tax: el('tax'),
  total: el('total'),
  taxNote: el('tax-note'),
  taxStatus: el('tax-status'),
  form: el<HTMLFormElement>('pay-form'),
  country: el<HTMLSelectElement>('country'),
  vatRow: el('vat-row'),
  vatId: el<HTMLInputElement>('vatId'),
  vatStatus: el('vat-status'),
  providers: el('provider-list'),
  formError: messageBox('form-error'),
  payButton: el<HTMLButtonElement>('pay-button'),
  result: el('result'),
  resultTitle: el('result-title'),
  resultText: el('result-text'),
  resultActions: el('result-actions'),
};

export const pageUrl = new URL(location.href);
export const base = apiBase(pageUrl.href);
export const sessionId = decodeURIComponent(pageUrl.pathname.split('/').filter(Boolean).pop() ?? '');
export const storageKey = `paymesh:checkout:${sessionId}`;
/** The page's own address without provider parameters (keeps an explicit `lang`). */
export function pagePath(transactionId?: string): string {
  const q = new URLSearchParams();
  const asked = pageUrl.searchParams.get('lang');
  if (asked) q.set('lang', asked);
  if (transactionId !== undefined) q.set('transactionId', transactionId);
  const query = q.toString();
  return query ? `${pageUrl.pathname}?${query}` : pageUrl.pathname;
}

/** A page-level message (expired, paid, blocked, errors); `requestId` is shown when known. */
export function notice(message: string, requestId = ''): void {
  ui.notice.show(message, reference(requestId));
  ui.notice.box.focus();
}

export function formError(message: string, requestId = ''): void {
  ui.formError.show(message, reference(requestId));
  ui.formError.box.focus();
}

/** The reference line of a message: the request's ID, for support; empty when unknown. */
const reference = (requestId: string): string => (requestId ? t('reference', { requestId }) : '');

/** The buyer-facing sentence for an error answer. */
export function errorMessage(res: ApiAnswer<ApiError>): string {
  const code = res.body.code ?? '';
  if (BLOCK_CODES.has(code)) return t('blocked');
  if (code === 'CHECKOUT_RESTRICTED_BY_CUSTOMER_HOLD') return t('restricted');
  if (code === 'CHECKOUT_EXPIRED') return t('expired');
  if (code === 'CHECKOUT_COMPLETED' || code === 'CHECKOUT_ALREADY_PAID') return t('completed');
  if (code.startsWith('LICENSE_')) return t('merchantUnavailable');
  if (res.status === 404) return t('notFound');
  if (res.status === 403) return t('forbidden');
  if (res.status === 429) return t('rateLimited');
  if (res.status >= 500) return t('unavailable');
  return t('genericError', { message: res.body.error ?? String(res.status) });
}

/** Errors that end the checkout for this buyer: the form goes away, the message stays. */
export function isTerminal(res: ApiAnswer<ApiError>): boolean {
  const code = res.body.code ?? '';
  return (
    BLOCK_CODES.has(code) ||
    code === 'CHECKOUT_EXPIRED' ||
    code === 'CHECKOUT_COMPLETED' ||
    code === 'CHECKOUT_ALREADY_PAID'
  );
}

export function field(name: string): HTMLInputElement | HTMLSelectElement {
  const f = ui.form.elements.namedItem(name);
  if (!(f instanceof HTMLInputElement || f instanceof HTMLSelectElement))
    throw new Error(`form field ${name} is missing`);
  return f;
}

export const value = (name: string): string => field(name).value.trim();

export function endWith(res: ApiAnswer<ApiError>): void {
  show(ui.form, false);
  notice(errorMessage(res), res.requestId);
}
