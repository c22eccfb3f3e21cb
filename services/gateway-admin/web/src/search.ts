/** Search parameters of the screens, read from the address (anything unexpected is dropped). */

export const PERIODS = [
  'today',
  'yesterday',
  'last_7_days',
  'last_30_days',
  'this_month',
  'last_month',
  'this_quarter',
  'this_year',
] as const;
export type Period = (typeof PERIODS)[number];

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const id = (v: unknown): string | undefined => {
  const s = str(v);
  return s && /^[0-9a-f]{24}$/.test(s) ? s : undefined;
};
const date = (v: unknown): string | undefined => {
  const s = str(v);
  return s && /^\d{4}-\d{2}-\d{2}$/.test(s) ? s : undefined;
};

export interface OverviewSearch {
  period?: Period | undefined;
  tz?: string | undefined;
  siteId?: string | undefined;
  currency?: string | undefined;
}

export function overviewSearch(s: Record<string, unknown>): OverviewSearch {
  const currency = str(s.currency);
  return {
    period: PERIODS.find((p) => p === s.period),
    tz: str(s.tz),
    siteId: id(s.siteId),
    currency: currency && /^[A-Z]{3}$/.test(currency) ? currency : undefined,
  };
}

export interface PaymentsSearch {
  page?: number | undefined;
  status?: number | undefined;
  siteId?: string | undefined;
  providerId?: string | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
  /** A merchant's reference, or (with an @) a buyer's e-mail address. */
  q?: string | undefined;
}

export function paymentsSearch(s: Record<string, unknown>): PaymentsSearch {
  const page = Number(s.page);
  const status = Number(s.status);
  return {
    page: Number.isInteger(page) && page > 1 ? page : undefined,
    status:
      s.status !== undefined && s.status !== '' && Number.isInteger(status) && status >= -2 && status <= 4
        ? status
        : undefined,
    siteId: id(s.siteId),
    providerId: id(s.providerId),
    startDate: date(s.startDate),
    endDate: date(s.endDate),
    q: str(s.q)?.trim().slice(0, 200) || undefined,
  };
}

const pageOf = (v: unknown): number | undefined => {
  const page = Number(v);
  return Number.isInteger(page) && page > 1 ? page : undefined;
};

export interface ClientsSearch {
  page?: number | undefined;
  /** Words of name or e-mail, or an exact tax ID. */
  q?: string | undefined;
}

export function clientsSearch(s: Record<string, unknown>): ClientsSearch {
  return { page: pageOf(s.page), q: str(s.q)?.trim().slice(0, 200) || undefined };
}

const INVOICE_STATUSES = ['draft', 'issued', 'partially_paid', 'paid', 'void'] as const;

export interface InvoicesSearch {
  page?: number | undefined;
  status?: (typeof INVOICE_STATUSES)[number] | undefined;
  clientId?: string | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
  /** An exact number, or a prefix ending with * (INV-2027-*). */
  number?: string | undefined;
  /** Gross total from / up to, minor units. */
  minAmount?: number | undefined;
  maxAmount?: number | undefined;
}

const minor = (v: unknown): number | undefined => {
  const n = Number(v);
  return v !== undefined && v !== '' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};

export function invoicesSearch(s: Record<string, unknown>): InvoicesSearch {
  return {
    page: pageOf(s.page),
    status: INVOICE_STATUSES.find((x) => x === s.status),
    clientId: id(s.clientId),
    startDate: date(s.startDate),
    endDate: date(s.endDate),
    number: str(s.number)?.trim().slice(0, 100) || undefined,
    minAmount: minor(s.minAmount),
    maxAmount: minor(s.maxAmount),
  };
}

export function newInvoiceSearch(s: Record<string, unknown>): { clientId?: string | undefined } {
  return { clientId: id(s.clientId) };
}

const RECURRING_STATUSES = ['active', 'paused', 'cancel_requested', 'cancelled', 'completed'] as const;

export interface RecurringSearch {
  page?: number | undefined;
  status?: (typeof RECURRING_STATUSES)[number] | undefined;
}

export function recurringSearch(s: Record<string, unknown>): RecurringSearch {
  return { page: pageOf(s.page), status: RECURRING_STATUSES.find((x) => x === s.status) };
}

export function newScheduleSearch(s: Record<string, unknown>): { invoiceId?: string | undefined } {
  return { invoiceId: id(s.invoiceId) };
}

export interface CreditNotesSearch {
  page?: number | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
}

export function creditNotesSearch(s: Record<string, unknown>): CreditNotesSearch {
  return { page: pageOf(s.page), startDate: date(s.startDate), endDate: date(s.endDate) };
}
