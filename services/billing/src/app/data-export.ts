import { stringify } from 'csv-stringify/sync';
import { ValidationError } from '@paymesh/core';
import {
  CREDIT_NOTE_KINDS,
  INVOICE_STATUSES,
  type ClientRecord,
  type CreditNoteRecord,
  type DataExportEntity,
  type DataExportRequest,
  type InvoiceRecord,
} from '@paymesh/contracts';
import type { Filter } from '@paymesh/store';
import type { ClientDoc } from '../domain/client';
import { safeCell } from '../domain/data-io';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import { CLIENTS, CREDIT_NOTES, INVOICES } from '../store/collections';
import { viewOf } from './client-codec';
import type { DataIoDeps, ExportTransaction } from './data-io-port';
import type { OrgKey } from './deps';
import { creditNoteView, invoiceView } from './invoice-view';

/** Records read per store page (and per CSV chunk streamed). */
export const EXPORT_PAGE = 500;

/** One exported column: its header, whether its values are numbers (written as they are), and how a record gives it. */
interface ExportColumn<T> {
  header: string;
  numeric?: boolean;
  value(record: T): unknown;
}

const c = <T>(header: string, value: (r: T) => unknown, numeric = false): ExportColumn<T> => ({
  header,
  value,
  numeric,
});

/** A cell as written: numbers of numeric columns as they are, everything else neutralised against formulas. */
function cell<T>(column: ExportColumn<T>, record: T): string {
  const v = column.value(record);
  if (column.numeric && typeof v === 'number' && Number.isFinite(v)) return String(v);
  return safeCell(v);
}

function dayRange(req: DataExportRequest): { $gte?: string; $lte?: string } | undefined {
  if (!req.from && !req.to) return undefined;
  return { ...(req.from ? { $gte: req.from } : {}), ...(req.to ? { $lte: req.to } : {}) };
}

/** Creation-time bounds of a day range (UTC): `to` includes its whole day. */
function createdRange(req: DataExportRequest): { $gte?: string; $lt?: string } | undefined {
  if (!req.from && !req.to) return undefined;
  const next = (d: string) => new Date(Date.parse(`${d}T00:00:00.000Z`) + 86_400_000).toISOString();
  return { ...(req.from ? { $gte: `${req.from}T00:00:00.000Z` } : {}), ...(req.to ? { $lt: next(req.to) } : {}) };
}

/** Pages of a store collection, oldest first (records created while it runs come last). */
async function* storePages<D extends { id: string; version: number }>(
  deps: DataIoDeps,
  collection: string,
  filter: Filter,
): AsyncGenerator<D[]> {
  for (let page = 1; ; page++) {
    const res = await deps.store
      .collection<D>(collection)
      .find(filter, { sort: { createdAt: 1 }, page, limit: EXPORT_PAGE });
    if (res.items.length > 0) yield res.items;
    if (res.items.length < EXPORT_PAGE) return;
  }
}

/** An export: its header row and its rows as cells, page by page. */
interface ExportPlan {
  headers: string[];
  rows: AsyncGenerator<string[][]>;
}

function planOf<T>(columns: ExportColumn<T>[], pages: AsyncGenerator<T[]>): ExportPlan {
  async function* rows() {
    for await (const items of pages) yield items.map((r) => columns.map((col) => cell(col, r)));
  }
  return { headers: columns.map((col) => col.header), rows: rows() };
}

function unsupportedFilter(entity: DataExportEntity, field: 'status' | 'siteId'): never {
  throw new ValidationError(`${field}: ${entity} cannot be filtered by ${field}`, { field });
}

/**
 * The filter of an issued-document export: the request's status checked against the values the
 * documents' `status.field` takes (`status.refusal` says which), its site and its issue-day range.
 */
function issuedFilter(
  base: Filter,
  req: DataExportRequest,
  status: { field: 'status' | 'kind'; values: readonly string[]; refusal: string },
): Filter {
  const filter: Filter = { ...base };
  if (req.status) {
    if (!status.values.includes(req.status))
      throw new ValidationError(`status: ${status.refusal}`, { field: 'status' });
    filter[status.field] = req.status;
  }
  if (req.siteId) filter.siteId = req.siteId;
  const range = dayRange(req);
  if (range) filter.issueDate = range;
  return filter;
}

async function* mapPages<D, R>(pages: AsyncGenerator<D[]>, f: (d: D) => R): AsyncGenerator<R[]> {
  for await (const items of pages) yield items.map(f);
}

function plan(deps: DataIoDeps, key: OrgKey, req: DataExportRequest): ExportPlan {
  const base: Filter = { organizationId: key.organizationId, mode: key.mode };
  switch (req.entityType) {
    case 'clients': {
      if (req.status) unsupportedFilter('clients', 'status');
      if (req.siteId) unsupportedFilter('clients', 'siteId');
      const range = createdRange(req);
      const pages = storePages<ClientDoc>(deps, CLIENTS, { ...base, ...(range ? { createdAt: range } : {}) });
      return planOf<ClientRecord>(
        [
          c('id', (r) => r.id),
          c('name', (r) => r.name),
          c('email', (r) => r.email),
          c('phone', (r) => r.phone),
          c('address.street', (r) => r.address?.street),
          c('address.city', (r) => r.address?.city),
          c('address.postalCode', (r) => r.address?.postalCode),
          c('address.country', (r) => r.address?.country),
          c('taxInfo.taxId', (r) => r.taxInfo?.taxId?.masked),
          c('taxInfo.taxIdType', (r) => r.taxInfo?.taxIdType),
          c('taxInfo.taxCountry', (r) => r.taxInfo?.taxCountry),
          c('notes', (r) => r.notes),
          c('language', (r) => r.language),
          c('eInvoiceFormat', (r) => r.eInvoiceFormat),
          c('createdAt', (r) => r.createdAt),
          c('updatedAt', (r) => r.updatedAt),
        ],
        mapPages(pages, (d) => viewOf(deps, key, d, false)),
      );
    }
    case 'invoices': {
      const filter = issuedFilter(base, req, {
        field: 'status',
        values: INVOICE_STATUSES,
        refusal: `must be one of ${INVOICE_STATUSES.join(', ')}`,
      });
      return planOf<InvoiceRecord>(
        [
          c('id', (r) => r.id),
          c('number', (r) => r.number ?? r.proformaNumber),
          c('status', (r) => r.status),
          c('siteId', (r) => r.siteId),
          c('clientId', (r) => r.clientId),
          c('buyerName', (r) => r.snapshot?.buyer.name),
          c('currency', (r) => r.currency),
          c('issueDate', (r) => r.issueDate),
          c('dueDate', (r) => r.dueDate),
          c('net', (r) => r.totals.net, true),
          c('tax', (r) => r.totals.tax, true),
          c('gross', (r) => r.totals.gross, true),
          c('amountPaid', (r) => r.amountPaid, true),
          c('amountDue', (r) => r.amountDue, true),
          c('lines', (r) => r.items.length, true),
          c('createdAt', (r) => r.createdAt),
        ],
        mapPages(storePages<InvoiceDoc>(deps, INVOICES, filter), (d) => invoiceView(deps.secrets, key, d)),
      );
    }
    case 'credit_notes': {
      const filter = issuedFilter(base, req, {
        field: 'kind',
        values: CREDIT_NOTE_KINDS,
        refusal: `credit notes filter by kind, one of ${CREDIT_NOTE_KINDS.join(', ')}`,
      });
      return planOf<CreditNoteRecord>(
        [
          c('id', (r) => r.id),
          c('number', (r) => r.number),
          c('kind', (r) => r.kind),
          c('invoiceId', (r) => r.invoiceId),
          c('invoiceNumber', (r) => r.invoiceNumber),
          c('siteId', (r) => r.siteId),
          c('clientId', (r) => r.clientId),
          c('buyerName', (r) => r.buyer.name),
          c('currency', (r) => r.currency),
          c('issueDate', (r) => r.issueDate),
          c('net', (r) => r.totals.net, true),
          c('tax', (r) => r.totals.tax, true),
          c('gross', (r) => r.totals.gross, true),
          c('reason', (r) => r.reason),
          c('createdAt', (r) => r.createdAt),
        ],
        mapPages(storePages<CreditNoteDoc>(deps, CREDIT_NOTES, filter), (d) => creditNoteView(deps.secrets, key, d)),
      );
    }
    case 'transactions': {
      let statuses: number[] | undefined;
      if (req.status) {
        if (!/^-?\d{1,2}$/.test(req.status))
          throw new ValidationError('status: transactions filter by their numeric status', { field: 'status' });
        statuses = [Number(req.status)];
      }
      const range = createdRange(req);
      // The window ends now: transactions created while the export runs do not shift its pages.
      const now = deps.clock.now().toISOString();
      const to = range?.$lt && range.$lt < now ? new Date(Date.parse(range.$lt) - 1).toISOString() : now;
      const filter = {
        ...(range?.$gte ? { createdFrom: range.$gte } : {}),
        createdTo: to,
        ...(statuses ? { statuses } : {}),
        ...(req.siteId ? { siteIds: [req.siteId] } : {}),
      };
      const pages = async function* () {
        for (let page = 1; ; page++) {
          const items = await deps.dataIo.transactions(key, filter, page, 100);
          if (items.length > 0) yield items;
          if (items.length < 100) return;
        }
      };
      return planOf<ExportTransaction>(
        [
          c('id', (r) => r.id),
          c('createdAt', (r) => r.createdAt),
          c('siteId', (r) => r.siteId),
          c('status', (r) => r.status, true),
          c('amount', (r) => r.amount, true),
          c('refundedAmount', (r) => r.refundedAmount, true),
          c('currency', (r) => r.currency),
          c('email', (r) => r.email),
          c('externalReference', (r) => r.externalReference),
          c('invoiceNumber', (r) => r.invoiceNumber),
          c('clientId', (r) => r.clientId),
          c('providerType', (r) => r.providerType),
          c('manual', (r) => r.manual),
        ],
        pages(),
      );
    }
  }
}

/**
 * Streams an export as CSV chunks: the header row, then one chunk per page of records (built with
 * csv-stringify), so neither side holds the whole file. Text cells that a spreadsheet would read as
 * a formula are neutralised; amounts (minor units) stay numbers.
 */
export async function* exportData(deps: DataIoDeps, key: OrgKey, query: DataExportRequest): AsyncGenerator<Buffer> {
  const { headers, rows: pages } = plan(deps, key, query);
  // A byte order mark first: spreadsheets then read the file as UTF-8.
  yield Buffer.from(`\uFEFF${stringify([headers])}`);
  let rows = 0;
  for await (const page of pages) {
    rows += page.length;
    yield Buffer.from(stringify(page));
  }
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, entityType: query.entityType, rows },
    'data exported',
  );
}
