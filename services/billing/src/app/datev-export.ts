import { createHash } from 'node:crypto';
import iconv from 'iconv-lite';
import { ConflictError, ErrorCode, NotFoundError, ofTenant, ValidationError } from '@paymesh/core';
import type {
  DatevExportRecord,
  DatevExportRequest,
  DatevPostingCounts,
  DatevSettingsView,
  TaxLineResult,
} from '@paymesh/contracts';
import type { Filter, StoredDoc } from '@paymesh/store';
import type { ClientDoc } from '../domain/client';
import {
  DEBTORS_CATEGORY,
  DEBTOR_COLUMNS,
  MAX_POSTINGS_PER_FILE,
  POSTINGS_CATEGORY,
  POSTING_COLUMNS,
  debtorFields,
  effectiveDatev,
  fiscalYearOf,
  headerFields,
  line,
  postingFields,
  revenueAccountOf,
  revenueGroups,
  type Debtor,
  type HeaderParams,
  type Posting,
} from '../domain/datev';
import type { CreditNoteDoc, InvoiceDoc, StoredBuyer } from '../domain/invoice';
import { CLIENTS, CREDIT_NOTES, DATEV_DEBTORS, DATEV_EXPORTS, DATEV_POSTED, INVOICES } from '../store/collections';
import { openClient } from './client-codec';
import type { DataIoDeps } from './data-io-port';
import type { OrgKey } from './deps';
import { openBuyer } from './invoice-sealing';
import { getInvoicingSettings } from './invoicing-settings';
import { dayPages, daysOf, keysetPages } from './keyset-pages';
import { ZipStream } from './zip-stream';

/** Documents read per store page (and booked per step). */
export const DATEV_PAGE = 500;
/** A running export older than this is taken to have died with its process. */
const STALE_RUN_MS = 60 * 60_000;

export interface DatevExportDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  from: string;
  to: string;
  select: DatevExportRecord['select'];
  status: DatevExportRecord['status'];
  postings: number;
  counts: DatevPostingCounts;
  debtors: number;
  files: number;
  digest: string | null;
  bytes: number;
  actor: string | null;
  createdAt: string;
  completedAt: string | null;
  /** `<organization>:<mode>` while running (unique), absent afterwards. */
  lock?: string;
  /** Documents read of those to read (absent on exports recorded before progress was kept). */
  progress?: { done: number; total: number };
  /** Blob parts of the kept zip (`datev-exports/<id>/<n>`), set when a job's export completed. */
  parts?: number;
}

/** A document or payment an export delivered; id derived from the tenant and `key`. */
interface PostedDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  exportId: string;
  key: string;
}

/** The debtor account of a client, and the last export that booked to it. */
interface DebtorDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  clientId: string;
  account: number;
  /** The buyer's name as last booked (for a client deleted since). */
  name: string;
  lastExportId: string;
}

type Kind = keyof DatevPostingCounts;

/** The bookings of one store page, and how many documents the page held (progress). */
interface BookingPage {
  read: number;
  bookings: Booking[];
}

/** A document or payment to book: its postings once the client's debtor account is known. */
interface Booking {
  /** Identity across exports (`inv:<id>`, `cn:<id>`, `pay:<invoice>:<transaction>`, `rev:<invoice>:<event>`). */
  key: string;
  kind: Kind;
  clientId: string;
  buyerName: string;
  /** Provider transaction whose clearing account the posting uses (payments, refunds, chargebacks). */
  transactionId?: string;
  postings(debtor: number, clearing: number): Posting[];
}

export function recordOf(d: DatevExportDoc): DatevExportRecord {
  return {
    id: d.id,
    from: d.from,
    to: d.to,
    select: d.select,
    status: d.status,
    postings: d.postings,
    counts: d.counts,
    debtors: d.debtors,
    files: d.files,
    digest: d.digest,
    bytes: d.bytes,
    actor: d.actor,
    createdAt: d.createdAt,
    completedAt: d.completedAt,
    progress: d.progress ?? { done: 0, total: 0 },
    file: d.status === 'completed' && d.parts !== undefined,
  };
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day of an instant in a time zone (`YYYY-MM-DD`). */
export function dayIn(timeZone: string, at: string): string {
  let f = dayFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(timeZone, f);
  }
  return f.format(new Date(at));
}

/** The export's range: in one fiscal year, `to` defaulting to today and `from` to its fiscal year's first day. */
export function rangeOf(req: DatevExportRequest, v: DatevSettingsView, today: string): { from: string; to: string } {
  const to = req.to ?? today;
  const year = fiscalYearOf(to, v.fiscalYearStartMonth);
  const from = req.from ?? year.start;
  if (from > to) throw new ValidationError('from: must not be after to', { field: 'from' });
  if (from < year.start)
    throw new ValidationError(
      `from: a DATEV batch lies in one fiscal year; ${to} is in the fiscal year from ${year.start} to ${year.end}`,
      { field: 'from' },
    );
  return { from, to };
}

const postedId = (key: OrgKey, unit: string) =>
  createHash('sha256').update(`${key.organizationId}:${key.mode}:${unit}`).digest('hex').slice(0, 24);

/** Store pages of a filter, in id order (keyset). */
function pages<D extends StoredDoc>(deps: DataIoDeps, collection: string, filter: Filter): AsyncGenerator<D[]> {
  return keysetPages<D>(deps, collection, filter, DATEV_PAGE);
}

/** Store pages of the organization's documents issued in the range, day by day. */
function issuedPages<D extends StoredDoc>(
  deps: DataIoDeps,
  key: OrgKey,
  collection: string,
  range: { from: string; to: string },
): AsyncGenerator<D[]> {
  const tenant: Filter = { organizationId: key.organizationId, mode: key.mode };
  return dayPages<D>(deps, collection, tenant, 'issueDate', range, DATEV_PAGE);
}

/** The lines of a tax calculation as the revenue grouping takes them. */
const linesOf = (lines: readonly TaxLineResult[]) =>
  lines.map((l) => ({ decision: l.decision, taxRate: l.taxRate, taxCountry: l.taxCountry, gross: l.gross }));

/** What the postings of an invoice or credit note say. */
interface PostedDocument {
  lines: readonly TaxLineResult[];
  currency: string;
  date: string;
  number: string;
  dueDate: string | null;
  serviceDate: string | null;
  text: string;
  credit: boolean;
}

/** Revenue postings of a document: one per group of lines with the same treatment, rate and country. */
function documentPostings(
  v: DatevSettingsView,
  unit: string,
  doc: PostedDocument & { buyerVatId: string | null },
  debtor: number,
): Posting[] {
  return revenueGroups(linesOf(doc.lines)).map((g, i) => {
    const revenue = revenueAccountOf(v, g.treatment, g.rate, g.country);
    const debit = doc.credit ? g.gross < 0 : g.gross >= 0;
    const eu =
      g.treatment === 'oss'
        ? { euCountryVatId: g.country, euRate: g.rate }
        : g.treatment === 'reverse_charge' || g.treatment === 'intra_community_supply'
          ? { euCountryVatId: doc.buyerVatId, euRate: null }
          : {};
    return {
      key: `${unit}:${i}`,
      amount: Math.abs(g.gross),
      side: debit ? 'S' : 'H',
      currency: doc.currency,
      account: debtor,
      contra: revenue.account,
      buKey: revenue.buKey,
      date: doc.date,
      document1: doc.number,
      dueDate: doc.dueDate,
      text: doc.text,
      serviceDate: doc.serviceDate,
      lock: v.lockPostings,
      ...eu,
    };
  });
}

const vatIdOf = (v: string | null | undefined) => (v ? v.replace(/[\s.-]/g, '').toUpperCase() : null);

/**
 * An invoice or credit note to book, with the buyer's VAT ID (EU-UStID) when a line is reverse-charge
 * or an intra-community supply.
 */
function documentBooking(
  deps: DataIoDeps,
  key: OrgKey,
  v: DatevSettingsView,
  unit: string,
  kind: 'invoices' | 'creditNotes',
  clientId: string,
  buyer: StoredBuyer,
  doc: PostedDocument,
): Booking {
  const crossBorder = doc.lines.some((l) => l.decision === 'reverse_charge' || l.decision === 'intra_community_supply');
  const buyerVatId = crossBorder ? vatIdOf(openBuyer(deps.secrets, key, buyer).taxId) : null;
  return {
    key: unit,
    kind,
    clientId,
    buyerName: buyer.name,
    postings: (debtor) => documentPostings(v, unit, { ...doc, buyerVatId }, debtor),
  };
}

/** Invoices issued in the range (voided ones too: their void credit note books the reversal). */
async function* invoiceBookings(
  deps: DataIoDeps,
  key: OrgKey,
  v: DatevSettingsView,
  range: { from: string; to: string },
): AsyncGenerator<BookingPage> {
  for await (const items of issuedPages<InvoiceDoc>(deps, key, INVOICES, range)) {
    const out: Booking[] = [];
    for (const inv of items) {
      const snap = inv.snapshot;
      if (!snap || !inv.number) continue;
      const number = inv.number;
      out.push(
        documentBooking(deps, key, v, `inv:${inv.id}`, 'invoices', inv.clientId, snap.buyer, {
          lines: snap.taxCalculation.lines,
          currency: inv.currency,
          date: snap.issueDate,
          number,
          dueDate: snap.dueDate,
          serviceDate: snap.servicePeriod?.end ?? null,
          text: `Rechnung ${number} ${snap.buyer.name}`,
          credit: false,
        }),
      );
    }
    yield { read: items.length, bookings: out };
  }
}

async function* creditNoteBookings(
  deps: DataIoDeps,
  key: OrgKey,
  v: DatevSettingsView,
  range: { from: string; to: string },
): AsyncGenerator<BookingPage> {
  for await (const items of issuedPages<CreditNoteDoc>(deps, key, CREDIT_NOTES, range)) {
    const bookings = items.map((cn) =>
      documentBooking(deps, key, v, `cn:${cn.id}`, 'creditNotes', cn.clientId, cn.buyer, {
        lines: cn.taxCalculation.lines,
        currency: cn.currency,
        date: cn.issueDate,
        number: cn.number,
        dueDate: null,
        serviceDate: null,
        text: `Gutschrift ${cn.number} zu ${cn.invoiceNumber}`,
        credit: true,
      }),
    );
    yield { read: items.length, bookings };
  }
}

/**
 * A payment or reversal of an invoice: one posting between the provider's clearing account and the
 * client's debtor account, debiting the clearing account for money received (`amount` > 0) and
 * crediting it for money paid back (`amount` < 0).
 */
function cashBooking(
  v: DatevSettingsView,
  inv: InvoiceDoc,
  number: string,
  buyerName: string,
  b: { unit: string; kind: Kind; transactionId: string; amount: number; date: string; text: string },
): Booking {
  return {
    key: b.unit,
    kind: b.kind,
    clientId: inv.clientId,
    buyerName,
    transactionId: b.transactionId,
    postings: (debtor, clearing) => [
      {
        key: b.unit,
        amount: Math.abs(b.amount),
        side: b.amount > 0 ? 'S' : 'H',
        currency: inv.currency,
        account: clearing,
        contra: debtor,
        buKey: null,
        date: b.date,
        document1: number,
        text: b.text,
        lock: v.lockPostings,
      },
    ],
  };
}

/** Payments of invoices and their reversals (refunds, lost disputes) dated in the range. */
async function* paymentBookings(
  deps: DataIoDeps,
  key: OrgKey,
  v: DatevSettingsView,
  range: { from: string; to: string },
  timeZone: string,
): AsyncGenerator<BookingPage> {
  // Recording a payment or reversal updates its invoice, so no invoice updated before the day
  // before `from` (time zones) can hold one dated in the range. The organization's invoices are
  // read in id order and that is checked here: a range condition on a JSON string in the query
  // would make the planner scan the table for every page.
  const since = new Date(Date.parse(`${range.from}T00:00:00Z`) - 86_400_000).toISOString();
  const tenant: Filter = { organizationId: key.organizationId, mode: key.mode };
  const inRange = (day: string) => day >= range.from && day <= range.to;
  for await (const items of pages<InvoiceDoc>(deps, INVOICES, tenant)) {
    const out: Booking[] = [];
    for (const inv of items) {
      const number = inv.number;
      if (!number || inv.updatedAt < since) continue;
      const buyerName = inv.snapshot?.buyer.name ?? '';
      for (const p of inv.payments) {
        const day = dayIn(timeZone, p.paidAt);
        if (!inRange(day) || p.amount === 0) continue;
        out.push(
          cashBooking(v, inv, number, buyerName, {
            unit: `pay:${inv.id}:${p.transactionId}`,
            kind: 'payments',
            transactionId: p.transactionId,
            amount: p.amount,
            date: day,
            text: `Zahlung ${number} ${buyerName}`,
          }),
        );
      }
      for (const r of inv.paymentReversals ?? []) {
        const day = dayIn(timeZone, r.at);
        if (!inRange(day) || r.amount === 0) continue;
        const what = r.kind === 'refund' ? 'Erstattung' : 'Rückbelastung';
        // A reversal takes money back: its sign is the opposite of a payment's.
        out.push(
          cashBooking(v, inv, number, buyerName, {
            unit: `rev:${inv.id}:${r.sourceEventId}`,
            kind: r.kind === 'refund' ? 'refunds' : 'chargebacks',
            transactionId: r.transactionId,
            amount: -r.amount,
            date: day,
            text: `${what} ${number} ${buyerName}`,
          }),
        );
      }
    }
    yield { read: items.length, bookings: out };
  }
}

/** Documents the sources of a range will read: the progress bar's end. */
async function documentsToRead(deps: DataIoDeps, key: OrgKey, range: { from: string; to: string }): Promise<number> {
  const tenant: Filter = { organizationId: key.organizationId, mode: key.mode };
  const inRange: Filter = { ...tenant, issueDate: { $in: [...daysOf(range.from, range.to)] } };
  const [invoices, creditNotes, all] = await Promise.all([
    deps.store.collection<InvoiceDoc>(INVOICES).count(inRange),
    deps.store.collection<CreditNoteDoc>(CREDIT_NOTES).count(inRange),
    deps.store.collection<InvoiceDoc>(INVOICES).count(tenant),
  ]);
  return invoices + creditNotes + all;
}

/** Takes the organization's export lock by recording a running export; a run left by a dead process is failed first. */
async function startExport(deps: DataIoDeps, key: OrgKey, doc: Omit<DatevExportDoc, 'id' | 'version'>) {
  const exports = deps.store.collection<DatevExportDoc>(DATEV_EXPORTS);
  for (let attempt = 0; ; attempt++) {
    try {
      return await exports.insert(doc);
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt > 0) throw err;
      const running = await exports.findOne({ lock: doc.lock ?? null });
      const stale = running && Date.parse(running.createdAt) < deps.clock.now().getTime() - STALE_RUN_MS;
      if (!running || !stale) {
        throw new ConflictError('another DATEV export of this organization is running; retry when it has finished', {
          code: ErrorCode.DATEV_EXPORT_RUNNING,
        });
      }
      await failExport(deps, running.id);
    }
  }
}

/** Marks an export failed and forgets what it delivered (its postings stay "not exported"). */
async function failExport(deps: DataIoDeps, exportId: string): Promise<void> {
  await deps.store.collection<PostedDoc>(DATEV_POSTED).deleteMany({ exportId });
  await deps.store.collection<DatevExportDoc>(DATEV_EXPORTS).update(exportId, (cur) => {
    const { id: _id, version: _v, lock: _lock, ...rest } = cur;
    return { ...rest, status: 'failed', completedAt: deps.clock.now().toISOString() };
  });
}

/** The next debtor account to hand out in this export (read once; the export lock makes it ours). */
interface DebtorCounter {
  next: number | null;
}

/**
 * Hands out debtor accounts for the clients of a page and marks them as booked by this export: a
 * client keeps its account for good; a new one gets the merchant's choice or the next free number
 * from `firstAccount` (one export runs at a time per organization, so no two take the same).
 */
async function debtorAccounts(
  deps: DataIoDeps,
  key: OrgKey,
  v: DatevSettingsView,
  exportId: string,
  bookings: readonly Booking[],
  counter: DebtorCounter,
): Promise<Map<string, number>> {
  const accounts = new Map<string, number>();
  if (v.debtors.mode === 'collective') {
    for (const b of bookings) accounts.set(b.clientId, v.debtors.collectiveAccount);
    return accounts;
  }
  const names = new Map<string, string>();
  for (const b of bookings) names.set(b.clientId, b.buyerName);
  const ids = [...names.keys()];
  const col = deps.store.collection<DebtorDoc>(DATEV_DEBTORS);
  const tenant = { organizationId: key.organizationId, mode: key.mode };
  const known = await col.find({ ...tenant, clientId: { $in: ids } });
  const byClient = new Map(known.items.map((d) => [d.clientId, d]));
  const changed: { id: string; expectedVersion: number; next: Omit<DebtorDoc, 'id' | 'version'> }[] = [];
  const added: Omit<DebtorDoc, 'id' | 'version'>[] = [];
  for (const clientId of ids) {
    const chosen = v.debtors.clients[clientId];
    const name = names.get(clientId) ?? '';
    const doc = byClient.get(clientId);
    if (doc) {
      const account = chosen ?? doc.account;
      accounts.set(clientId, account);
      if (doc.lastExportId !== exportId || doc.account !== account) {
        const { id, version, ...rest } = doc;
        changed.push({ id, expectedVersion: version, next: { ...rest, account, name, lastExportId: exportId } });
      }
      continue;
    }
    let account = chosen;
    if (account === undefined) {
      if (counter.next === null) {
        const highest = await col.findOne(tenant, { sort: { account: -1 } });
        counter.next = Math.max(v.debtors.firstAccount, (highest?.account ?? 0) + 1);
      }
      account = counter.next++;
    }
    added.push({ ...tenant, clientId, account, name, lastExportId: exportId });
    accounts.set(clientId, account);
  }
  if (added.length > 0) await col.insertMany(added);
  if (changed.length > 0) await col.replaceMany(changed);
  return accounts;
}

/** Keeps the bookings no completed export delivered yet (`not_exported`) and records them as this export's. */
async function recordDelivered(
  deps: DataIoDeps,
  key: OrgKey,
  exportId: string,
  bookings: Booking[],
  onlyNew: boolean,
): Promise<Booking[]> {
  if (bookings.length === 0) return bookings;
  const col = deps.store.collection<PostedDoc>(DATEV_POSTED);
  const withIds = bookings.map((b) => ({ b, id: postedId(key, b.key) }));
  const found = await col.find({ id: { $in: withIds.map((x) => x.id) } });
  const seen = new Map(found.items.map((d) => [d.id, d.exportId]));
  const fresh = withIds.filter((x) => !seen.has(x.id)).map((x) => x.b);
  // A document met twice in one run is booked once.
  const notAgain = withIds.filter((x) => seen.get(x.id) !== exportId).map((x) => x.b);
  for (let at = 0; at < fresh.length; at += 1000) {
    await col.insertMany(
      fresh.slice(at, at + 1000).map((b) => ({
        id: postedId(key, b.key),
        organizationId: key.organizationId,
        mode: key.mode,
        exportId,
        key: b.key,
      })),
    );
  }
  return onlyNew ? fresh : notAgain;
}

/** A debtor known by its name alone (the collective debtor, a client deleted since it was booked). */
function nameOnlyDebtor(account: number, name: string, clientId: string | null): Debtor {
  return {
    account,
    name,
    company: false,
    vatId: null,
    street: null,
    postalCode: null,
    city: null,
    country: null,
    email: null,
    clientId,
  };
}

/** Master data rows of the clients this export booked to. */
async function* debtorRows(
  deps: DataIoDeps,
  key: OrgKey,
  v: DatevSettingsView,
  exportId: string,
): AsyncGenerator<Debtor[]> {
  if (v.debtors.mode === 'collective') {
    yield [nameOnlyDebtor(v.debtors.collectiveAccount, 'Sammeldebitor', null)];
    return;
  }
  const filter: Filter = { organizationId: key.organizationId, mode: key.mode, lastExportId: exportId };
  for await (const items of pages<DebtorDoc>(deps, DATEV_DEBTORS, filter)) {
    const clients = await deps.store
      .collection<ClientDoc>(CLIENTS)
      .find({ organizationId: key.organizationId, mode: key.mode, id: { $in: items.map((d) => d.clientId) } });
    const byId = new Map(clients.items.map((c) => [c.id, c]));
    yield items.map((d): Debtor => {
      const c = byId.get(d.clientId);
      if (!c) return nameOnlyDebtor(d.account, d.name || `Client ${d.clientId}`, d.clientId);
      const plain = openClient(deps, key, c);
      const vatId = plain.taxInfo?.taxIdType === 'vat' || !plain.taxInfo?.taxIdType ? plain.taxInfo?.taxId : null;
      return {
        account: d.account,
        name: plain.name,
        company: Boolean(vatId),
        vatId: vatId ?? null,
        street: plain.address?.street ?? null,
        postalCode: plain.address?.postalCode ?? null,
        city: plain.address?.city ?? null,
        country: plain.address?.country ?? null,
        email: plain.email,
        clientId: d.clientId,
      };
    });
  }
}

const ansi = (text: string) => iconv.encode(text, 'win1252');

/** An export that has taken the lock and is recorded as running; `chunks` writes its zip. */
interface DatevRun {
  record: DatevExportDoc;
  chunks: AsyncGenerator<Buffer>;
}

/**
 * Checks the settings and the range, counts what the range holds and records the export as running
 * (the organization's lock). Errors here (400, 409, 422) come before any byte of the zip.
 */
async function beginDatevExport(
  deps: DataIoDeps,
  key: OrgKey,
  req: DatevExportRequest,
  actor: string | null,
  options: { maxPerFile?: number; keep?: boolean },
): Promise<DatevRun> {
  const { settings } = await getInvoicingSettings(deps, key);
  const v = effectiveDatev(settings.datev);
  if (!v.consultantNumber || !v.clientNumber) {
    throw new ValidationError(
      'datev.consultantNumber: set the adviser and client numbers (datev.consultantNumber, datev.clientNumber) in PUT /organizations/settings/invoicing before exporting to DATEV',
      { field: 'datev.consultantNumber', code: ErrorCode.DATEV_SETTINGS_MISSING },
    );
  }
  const timeZone = settings.timeZone ?? 'UTC';
  const now = deps.clock.now();
  const range = rangeOf(req, v, dayIn(timeZone, now.toISOString()));
  const total = await documentsToRead(deps, key, range);
  const record = await startExport(deps, key, {
    organizationId: key.organizationId,
    mode: key.mode,
    from: range.from,
    to: range.to,
    select: req.select,
    status: 'running',
    postings: 0,
    counts: { invoices: 0, creditNotes: 0, payments: 0, refunds: 0, chargebacks: 0 },
    debtors: 0,
    files: 0,
    digest: null,
    bytes: 0,
    actor,
    createdAt: now.toISOString(),
    completedAt: null,
    lock: `${key.organizationId}:${key.mode}`,
    progress: { done: 0, total },
  });
  const context: RunContext = {
    v: { ...v, consultantNumber: v.consultantNumber, clientNumber: v.clientNumber },
    range,
    timeZone,
    now,
    maxPerFile: Math.min(options.maxPerFile ?? MAX_POSTINGS_PER_FILE, MAX_POSTINGS_PER_FILE),
  };
  return { record, chunks: runDatevExport(deps, key, req, record, context) };
}

interface RunContext {
  v: DatevSettingsView & { consultantNumber: number; clientNumber: number };
  range: { from: string; to: string };
  timeZone: string;
  now: Date;
  maxPerFile: number;
}

/** Writes the zip of a running export page by page, recording its progress; completes or fails the record. */
async function* runDatevExport(
  deps: DataIoDeps,
  key: OrgKey,
  req: DatevExportRequest,
  started: DatevExportDoc,
  { v, range, timeZone, now, maxPerFile }: RunContext,
): AsyncGenerator<Buffer> {
  const exports = deps.store.collection<DatevExportDoc>(DATEV_EXPORTS);
  const counts: DatevPostingCounts = { ...started.counts };
  let record = started;
  let done = false;
  try {
    const header = (category: HeaderParams['category'], part: number): HeaderParams => ({
      category,
      createdAt: now,
      consultantNumber: v.consultantNumber,
      clientNumber: v.clientNumber,
      fiscalYearStart: fiscalYearOf(range.to, v.fiscalYearStartMonth).start,
      accountLength: v.accountLength,
      from: range.from,
      to: range.to,
      label: `Paymesh ${range.from} ${range.to}${part > 1 ? ` ${part}` : ''}`,
      lock: v.lockPostings,
      chart: v.chart,
    });
    const zip = new ZipStream(now);
    const stem = `${range.from.replaceAll('-', '')}_${range.to.replaceAll('-', '')}`;
    let files = 0;
    let inFile = 0;
    let postings = 0;
    let read = 0;
    const openPostingsFile = () => {
      files++;
      inFile = 0;
      zip.open(`EXTF_Buchungsstapel_${stem}_${String(files).padStart(3, '0')}.csv`);
      zip.write(ansi(line(headerFields(header(POSTINGS_CATEGORY, files))) + line(POSTING_COLUMNS)));
    };
    openPostingsFile();
    const counter: DebtorCounter = { next: null };
    const sources = [
      invoiceBookings(deps, key, v, range),
      creditNoteBookings(deps, key, v, range),
      paymentBookings(deps, key, v, range, timeZone),
    ];
    for (const source of sources) {
      for await (const page of source) {
        // The export holds the lock: it is the record's only writer, so the held version is current.
        read += page.read;
        record = await exports.replace({
          ...record,
          progress: { done: Math.min(read, record.progress?.total ?? read), total: record.progress?.total ?? read },
        });
        const bookings = await recordDelivered(deps, key, started.id, page.bookings, req.select === 'not_exported');
        if (bookings.length === 0) continue;
        const debtors = await debtorAccounts(deps, key, v, started.id, bookings, counter);
        const txIds = [...new Set(bookings.flatMap((b) => (b.transactionId ? [b.transactionId] : [])))];
        const providers = txIds.length > 0 ? await deps.dataIo.transactionProviders(key, txIds) : new Map();
        let text = '';
        for (const b of bookings) {
          const provider = b.transactionId ? providers.get(b.transactionId) : undefined;
          const clearing = (provider && v.clearing.byProvider[provider]) || v.clearing.default;
          const debtor = debtors.get(b.clientId) ?? v.debtors.collectiveAccount;
          for (const p of b.postings(debtor, clearing)) {
            if (inFile === maxPerFile) {
              zip.write(ansi(text));
              text = '';
              openPostingsFile();
            }
            text += line(postingFields(p));
            inFile++;
            postings++;
          }
          counts[b.kind]++;
        }
        zip.write(ansi(text));
        const chunk = zip.drain();
        if (chunk) yield chunk;
      }
    }
    zip.open(`EXTF_Debitoren_Kreditoren_${stem}.csv`);
    zip.write(ansi(line(headerFields(header(DEBTORS_CATEGORY, 1))) + line(DEBTOR_COLUMNS)));
    let debtorCount = 0;
    for await (const rows of debtorRows(deps, key, v, started.id)) {
      zip.write(ansi(rows.map((d) => line(debtorFields(d))).join('')));
      debtorCount += rows.length;
      const chunk = zip.drain();
      if (chunk) yield chunk;
    }
    zip.end();
    const last = zip.drain();
    if (last) yield last;
    const digest = zip.digest();
    await exports.update(started.id, (cur) => {
      const { id: _id, version: _v, lock: _lock, ...rest } = cur;
      const total = Math.max(read, rest.progress?.total ?? 0);
      return {
        ...rest,
        status: 'completed',
        postings,
        counts,
        debtors: debtorCount,
        files,
        digest,
        bytes: zip.bytes,
        completedAt: deps.clock.now().toISOString(),
        progress: { done: total, total },
      };
    });
    done = true;
    deps.logger.info(
      { organizationId: key.organizationId, mode: key.mode, exportId: started.id, postings, files, digest },
      'DATEV export completed',
    );
  } finally {
    if (!done) {
      await failExport(deps, started.id).catch((err: unknown) =>
        deps.logger.error({ err, exportId: started.id }, 'DATEV export could not be marked failed'),
      );
    }
  }
}

/**
 * Streams a DATEV export as a zip: `EXTF_Buchungsstapel_<from>_<to>_<nnn>.csv` (a new file every
 * 99,999 postings) and `EXTF_Debitoren_Kreditoren_<from>_<to>.csv`, Windows-1252, semicolons, CRLF.
 * One page of documents is held at a time. The export is recorded (range, counts, progress, SHA-256
 * of the zip); what it delivered is kept so that `select: not_exported` later leaves it out. An
 * export that does not finish (error, download cut) is recorded as failed and delivered nothing.
 */
export async function* exportDatev(
  deps: DataIoDeps,
  key: OrgKey,
  req: DatevExportRequest,
  actor: string | null,
  options: { maxPerFile?: number } = {},
): AsyncGenerator<Buffer> {
  const run = await beginDatevExport(deps, key, req, actor, options);
  yield* run.chunks;
}

/** Bytes per blob part of a kept zip: one part is held in memory at a time. */
const PART_BYTES = 1024 * 1024;
const partKey = (exportId: string, n: number) => `datev-exports/${exportId}/${n}`;

/**
 * Starts a DATEV export that runs on in this process after the answer (a job): the zip is kept in
 * blob parts of about 1 MiB and the record's progress follows the pages read, so a caller polls
 * `getDatevExport` and downloads the file once completed. The answer is the running record.
 * A process that stops meanwhile leaves the record running; the next export fails it after an hour.
 */
export async function startDatevExport(
  deps: DataIoDeps,
  key: OrgKey,
  req: DatevExportRequest,
  actor: string | null,
  options: { maxPerFile?: number } = {},
): Promise<DatevExportRecord> {
  const run = await beginDatevExport(deps, key, req, actor, options);
  void keepZip(deps, run).catch((err: unknown) =>
    deps.logger.error({ err, exportId: run.record.id }, 'DATEV export job failed'),
  );
  return recordOf(run.record);
}

/** Drains a job's zip into blob parts; records the part count once the export completed. */
async function keepZip(deps: DataIoDeps, run: DatevRun): Promise<void> {
  const id = run.record.id;
  let parts = 0;
  let held: Buffer[] = [];
  let size = 0;
  const flush = async () => {
    if (size === 0) return;
    await deps.store.blobs.put(partKey(id, parts), { bytes: Buffer.concat(held), contentType: 'application/zip' });
    parts++;
    held = [];
    size = 0;
  };
  try {
    for await (const chunk of run.chunks) {
      held.push(chunk);
      size += chunk.length;
      if (size >= PART_BYTES) await flush();
    }
    await flush();
  } catch (err) {
    // The generator has failed the record; its parts are of no use.
    for (let n = 0; n <= parts; n++) await deps.store.blobs.delete(partKey(id, n));
    throw err;
  }
  await deps.store.collection<DatevExportDoc>(DATEV_EXPORTS).update(id, (cur) => {
    return { ...cur, parts };
  });
}

/** One recorded DATEV export of the organization (404 for another's). */
export async function getDatevExport(deps: DataIoDeps, key: OrgKey, id: string): Promise<DatevExportRecord> {
  return recordOf(await ownExport(deps, key, id));
}

async function ownExport(deps: DataIoDeps, key: OrgKey, id: string): Promise<DatevExportDoc> {
  const doc = await deps.store.collection<DatevExportDoc>(DATEV_EXPORTS).get(id);
  if (!ofTenant(doc, key)) throw new NotFoundError('DATEV export not found');
  return doc;
}

/**
 * The kept zip of a completed export, part by part (404 when unknown; 409 while it runs, when it
 * failed, or when it was streamed and not kept).
 */
export async function* datevExportFile(deps: DataIoDeps, key: OrgKey, id: string): AsyncGenerator<Buffer> {
  const doc = await ownExport(deps, key, id);
  if (doc.status !== 'completed' || doc.parts === undefined) {
    throw new ConflictError(
      doc.status === 'running'
        ? 'the DATEV export is still running; download it once its status is completed'
        : doc.status === 'failed'
          ? 'the DATEV export failed; start another'
          : 'the zip of this DATEV export was streamed to its caller and not kept',
      { code: ErrorCode.DATEV_EXPORT_NOT_KEPT },
    );
  }
  for (let n = 0; n < doc.parts; n++) {
    const part = await deps.store.blobs.get(partKey(id, n));
    if (!part) throw new Error(`DATEV export ${id}: part ${n} of its zip is missing`);
    yield part.bytes;
  }
}

/** Recorded DATEV exports, newest first. */
export async function listDatevExports(
  deps: DataIoDeps,
  key: OrgKey,
  q: { page: number; limit: number },
): Promise<{ items: DatevExportRecord[]; total: number; page: number; limit: number }> {
  const res = await deps.store
    .collection<DatevExportDoc>(DATEV_EXPORTS)
    .find(
      { organizationId: key.organizationId, mode: key.mode },
      { sort: { createdAt: -1 }, page: q.page, limit: q.limit, total: true },
    );
  return { items: res.items.map(recordOf), total: res.total, page: res.page, limit: res.limit };
}
