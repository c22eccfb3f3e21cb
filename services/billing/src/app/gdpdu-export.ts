import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, UnavailableError } from '@paymesh/core';
import type { GdpduExportRequest } from '@paymesh/contracts';
import type { Filter, StoredDoc } from '@paymesh/store';
import type { ClientDoc } from '../domain/client';
import { effectiveDatev, fiscalYearStarting } from '../domain/datev';
import {
  CLIENTS_TABLE,
  CREDIT_NOTES_TABLE,
  GDPDU_DTD,
  INVOICES_TABLE,
  INVOICE_LINES_TABLE,
  PAYMENTS_TABLE,
  TAX_RECORDS_TABLE,
  gdpduDate,
  gdpduMoney,
  gdpduRate,
  gdpduRecord,
  gdpduText,
  indexXml,
  type GdpduTable,
} from '../domain/gdpdu';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import { CLIENTS, CREDIT_NOTES, INVOICES } from '../store/collections';
import { openClient } from './client-codec';
import type { DataIoDeps } from './data-io-port';
import { dayIn } from './datev-export';
import type { OrgKey } from './deps';
import { openBuyer } from './invoice-sealing';
import { getInvoicingSettings } from './invoicing-settings';
import { dayPages, keysetPages } from './keyset-pages';
import { ZipStream } from './zip-stream';

/** Records read per store page (and written per step). */
const PAGE = 500;
/** Tax records per call of the tax service (its page limit). */
const TAX_PAGE = 100;

/** Where the build puts the DTD (`services/billing/dist/standards/`), from src/app or dist/app alike. */
export function defaultDtdPath(): string {
  return join(__dirname, '..', '..', 'dist', 'standards', GDPDU_DTD);
}

export interface GdpduDeps extends DataIoDeps {
  /** The GDPdU DTD file shipped in every package. */
  gdpduDtdPath: string;
}

function pages<D extends StoredDoc>(deps: DataIoDeps, collection: string, filter: Filter): AsyncGenerator<D[]> {
  return keysetPages<D>(deps, collection, filter, PAGE);
}

const tenantOf = (key: OrgKey): Filter => ({ organizationId: key.organizationId, mode: key.mode });

/** One table's records, page by page, as text. */
type TableSource = AsyncGenerator<string[]>;

function cells(table: GdpduTable, values: readonly (string | number | null | undefined)[], currency = 'EUR'): string {
  if (values.length !== table.columns.length) throw new Error(`${table.file}: ${values.length} values`);
  return gdpduRecord(
    table.columns.map((c, i) => {
      const v = values[i];
      if (c.type.kind === 'text') return gdpduText(v === null || v === undefined ? null : String(v), c.type.max);
      if (c.type.kind === 'date') return gdpduDate(typeof v === 'string' ? v : null);
      if (v === null || v === undefined) return '';
      return c.type.accuracy === 0 ? String(v) : typeof v === 'number' ? gdpduMoney(v, currency) : String(v);
    }),
  );
}

async function* clientRows(deps: DataIoDeps, key: OrgKey, to: string): TableSource {
  // Range conditions on JSON strings are checked here, not in the query (see keyset-pages.ts).
  const end = `${to}T23:59:59.999Z`;
  for await (const items of pages<ClientDoc>(deps, CLIENTS, tenantOf(key))) {
    yield items.flatMap((c) => {
      if (c.createdAt > end) return [];
      const p = openClient(deps, key, c);
      return cells(CLIENTS_TABLE, [
        c.id,
        p.name,
        p.email,
        p.address?.street,
        p.address?.postalCode,
        p.address?.city,
        p.address?.country,
        p.taxInfo?.taxId,
        p.taxInfo?.taxIdType,
        p.taxInfo?.taxCountry,
        c.createdAt.slice(0, 10),
      ]);
    });
  }
}

/** Invoices (and their lines) issued in [from, to], day by day. */
function issuedInvoices(deps: DataIoDeps, key: OrgKey, from: string, to: string): AsyncGenerator<InvoiceDoc[]> {
  return dayPages<InvoiceDoc>(deps, INVOICES, tenantOf(key), 'issueDate', { from, to }, PAGE);
}

async function* invoiceRows(deps: DataIoDeps, key: OrgKey, from: string, to: string): TableSource {
  for await (const items of issuedInvoices(deps, key, from, to)) {
    yield items.flatMap((inv) => {
      const s = inv.snapshot;
      if (!s) return [];
      const buyer = openBuyer(deps.secrets, key, s.buyer);
      return [
        cells(
          INVOICES_TABLE,
          [
            inv.id,
            inv.number,
            inv.status,
            s.issueDate,
            s.dueDate,
            s.servicePeriod?.start,
            s.servicePeriod?.end,
            inv.clientId,
            buyer.name,
            buyer.taxId,
            inv.currency,
            s.totals.net,
            s.totals.tax,
            s.totals.gross,
            inv.amountPaid,
            inv.voidedAt?.slice(0, 10),
          ],
          inv.currency,
        ),
      ];
    });
  }
}

async function* invoiceLineRows(deps: DataIoDeps, key: OrgKey, from: string, to: string): TableSource {
  for await (const items of issuedInvoices(deps, key, from, to)) {
    yield items.flatMap((inv) =>
      (inv.snapshot?.taxCalculation.lines ?? []).map((l, i) =>
        cells(
          INVOICE_LINES_TABLE,
          [
            inv.id,
            i + 1,
            l.name,
            l.itemType,
            l.quantity,
            l.unitPrice,
            gdpduRate(l.taxRate),
            l.decision,
            l.taxCountry,
            l.net,
            l.tax,
            l.gross,
          ],
          inv.currency,
        ),
      ),
    );
  }
}

async function* creditNoteRows(deps: DataIoDeps, key: OrgKey, from: string, to: string): TableSource {
  const days = dayPages<CreditNoteDoc>(deps, CREDIT_NOTES, tenantOf(key), 'issueDate', { from, to }, PAGE);
  for await (const items of days) {
    yield items.map((cn) =>
      cells(
        CREDIT_NOTES_TABLE,
        [
          cn.id,
          cn.number,
          cn.kind,
          cn.invoiceId,
          cn.invoiceNumber,
          cn.issueDate,
          cn.clientId,
          cn.currency,
          cn.totals.net,
          cn.totals.tax,
          cn.totals.gross,
          cn.reason,
        ],
        cn.currency,
      ),
    );
  }
}

async function* paymentRows(deps: DataIoDeps, key: OrgKey, from: string, to: string, timeZone: string): TableSource {
  const since = new Date(Date.parse(`${from}T00:00:00Z`) - 86_400_000).toISOString();
  const inRange = (d: string) => d >= from && d <= to;
  for await (const items of pages<InvoiceDoc>(deps, INVOICES, tenantOf(key))) {
    const out: string[] = [];
    for (const inv of items) {
      if (!inv.number || inv.updatedAt < since) continue;
      for (const p of inv.payments) {
        const day = dayIn(timeZone, p.paidAt);
        if (!inRange(day)) continue;
        out.push(
          cells(
            PAYMENTS_TABLE,
            [
              `pay:${p.transactionId}`,
              'payment',
              day,
              inv.id,
              inv.number,
              p.transactionId,
              inv.currency,
              p.amount,
              null,
            ],
            inv.currency,
          ),
        );
      }
      for (const r of inv.paymentReversals ?? []) {
        const day = dayIn(timeZone, r.at);
        if (!inRange(day)) continue;
        out.push(
          cells(
            PAYMENTS_TABLE,
            [
              `${r.kind}:${r.sourceEventId}`,
              r.kind,
              day,
              inv.id,
              inv.number,
              r.transactionId,
              inv.currency,
              -r.amount,
              r.creditNoteId,
            ],
            inv.currency,
          ),
        );
      }
    }
    yield out;
  }
}

async function* taxRecordRows(deps: DataIoDeps, key: OrgKey, from: string, to: string): TableSource {
  for (let page = 1; ; page++) {
    const records = await deps.dataIo.taxRecords(key, from, to, page, TAX_PAGE);
    yield records.flatMap((r) =>
      r.lines.map((l, i) =>
        cells(
          TAX_RECORDS_TABLE,
          [
            r.id,
            i + 1,
            r.sourceKind,
            r.sourceId,
            r.entryType,
            r.recognitionMode,
            r.taxPointDate,
            r.currency,
            l.taxCountry,
            l.taxRateCode,
            gdpduRate(l.taxRate),
            l.decision,
            l.net,
            l.tax,
          ],
          r.currency,
        ),
      ),
    );
    if (records.length < TAX_PAGE) return;
  }
}

async function readDtd(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch {
    throw new UnavailableError(
      `the GDPdU DTD is missing at ${path}: build the service (it copies the DTD) or set GDPDU_DTD_PATH`,
      { code: ErrorCode.GDPDU_DTD_MISSING },
    );
  }
}

/**
 * Streams the GDPdU package of a fiscal year as a zip: `index.xml`, the DTD it names and the six
 * tables, each written page by page. Dates of instants (payments) are days in the organization's
 * time zone.
 */
export async function* exportGdpdu(deps: GdpduDeps, key: OrgKey, req: GdpduExportRequest): AsyncGenerator<Buffer> {
  const dtd = await readDtd(deps.gdpduDtdPath);
  const { settings } = await getInvoicingSettings(deps, key);
  const v = effectiveDatev(settings.datev);
  const { start: from, end: to } = fiscalYearStarting(req.fiscalYear, v.fiscalYearStartMonth);
  const timeZone = settings.timeZone ?? 'UTC';
  const now = deps.clock.now();
  const zip = new ZipStream(now);
  const address = settings.companyAddress;
  zip.open('index.xml');
  zip.write(
    Buffer.from(
      indexXml({
        supplier: settings.companyName ?? 'Paymesh organization',
        location: address ? `${address.street}, ${address.postalCode} ${address.city}, ${address.country}` : '-',
        comment: `Paymesh GDPdU export of the fiscal year ${gdpduDate(from)} to ${gdpduDate(to)}, created ${now.toISOString()}`,
        from,
        to,
      }),
      'utf8',
    ),
  );
  zip.open(GDPDU_DTD);
  zip.write(dtd);
  const tables: [GdpduTable, TableSource][] = [
    [CLIENTS_TABLE, clientRows(deps, key, to)],
    [INVOICES_TABLE, invoiceRows(deps, key, from, to)],
    [INVOICE_LINES_TABLE, invoiceLineRows(deps, key, from, to)],
    [CREDIT_NOTES_TABLE, creditNoteRows(deps, key, from, to)],
    [PAYMENTS_TABLE, paymentRows(deps, key, from, to, timeZone)],
    [TAX_RECORDS_TABLE, taxRecordRows(deps, key, from, to)],
  ];
  const first = zip.drain();
  if (first) yield first;
  const rows: Record<string, number> = {};
  for (const [table, source] of tables) {
    zip.open(table.file);
    let count = 0;
    for await (const records of source) {
      zip.write(Buffer.from(records.join(''), 'utf8'));
      count += records.length;
      const chunk = zip.drain();
      if (chunk) yield chunk;
    }
    rows[table.file] = count;
  }
  zip.end();
  const last = zip.drain();
  if (last) yield last;
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, fiscalYear: req.fiscalYear, rows, digest: zip.digest() },
    'GDPdU export completed',
  );
}
