import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, decodeJson, newObjectId, ValidationError, type Clock } from '@paymesh/core';
import type { DroppableStore } from '@paymesh/store';
import {
  billingRpc,
  datevExportRequest,
  type CalculateTaxRequest,
  type TaxCalculation,
  type TaxRecord,
} from '@paymesh/contracts';
import type { OrgKey } from '../src/app/deps';
import type { GdpduDeps } from '../src/app/gdpdu-export';
import type { InvoiceDeps } from '../src/app/invoice-deps';
import { createClient } from '../src/app/create-client';
import { issueInvoice } from '../src/app/issue-invoice';
import { createPaymentLink } from '../src/app/create-payment-link';
import { applyTransactionToInvoice } from '../src/app/invoice-transaction-events';
import { applyRefundToInvoice } from '../src/app/invoice-provider-refund';
import { applyChargebackToInvoice } from '../src/app/invoice-chargeback';
import { exportDatev, listDatevExports } from '../src/app/datev-export';
import { exportGdpdu } from '../src/app/gdpdu-export';
import { createInvoice, updateInvoicingSettings, voidInvoice } from './wire';
import { checkDebtors, checkPostings } from '../../../test/support/datev-format';
import { checkTable, describedTables, DTD_NAME, xmllintValid } from '../../../test/support/gdpdu-format';
import {
  billingStore,
  dropStore,
  invoiceDeps,
  linkCheckout,
  chargebackEvent,
  refundEvent,
  statusEvent as kitStatusEvent,
  type LinkTransaction,
} from './kit';
import { calculationOf, sumOf, vatIdCheckOf } from './tax-fixture';
import { taxedLine } from '../../../libs/contracts/test/tax-kit';

const EU = new Set(['AT', 'BE', 'FR', 'IT', 'NL', 'ES', 'PL']);
const DTD_BUILT = join(__dirname, '..', 'dist', 'standards', DTD_NAME);
const DTD_SHARED = join(__dirname, '..', '..', '..', '..', 'shared', 'standards', 'gdpdu', DTD_NAME);

/**
 * The tax engine is the tax service's (tested there): this stand-in decides a line the way the
 * engine's rules do for the cases the exports map (domestic at the line's rate or 19 %, OSS at
 * 20 % to EU consumers, reverse charge for services and intra-Community supply for goods to EU
 * businesses, export elsewhere), so the DATEV accounts and tax keys of each case can be checked.
 */
function calculate(req: CalculateTaxRequest): TaxCalculation {
  const country = req.buyer.country;
  const business = Boolean(req.buyer.vatId);
  const lines = req.lines.map((l, index) => {
    let decision: TaxCalculation['lines'][number]['decision'];
    let rate = 0;
    let taxCountry: string | null = country;
    if (country === 'DE') {
      decision = 'domestic';
      rate = l.taxRate ?? 19;
    } else if (EU.has(country) && business) {
      decision = l.itemType === 'goods' ? 'intra_community_supply' : 'reverse_charge';
    } else if (EU.has(country)) {
      decision = 'oss_destination';
      rate = 20;
    } else {
      decision = 'export';
      taxCountry = null;
    }
    return taxedLine(l, index, {
      taxRate: rate,
      taxRateCode: `VAT_${taxCountry ?? 'NONE'}_${rate}`,
      taxCountry,
      rateType: rate > 0 ? 'standard' : null,
      decision,
      reason: decision,
    });
  });
  const rates = [...new Set(lines.map((l) => l.taxRate))];
  return calculationOf(req, lines, {
    taxBreakdown: rates.map((r) => {
      const ls = lines.filter((l) => l.taxRate === r);
      return {
        taxRate: r,
        taxRateCode: ls[0]!.taxRateCode,
        taxableBase: sumOf(ls, 'net'),
        taxAmount: sumOf(ls, 'tax'),
      };
    }),
    buyer: {
      country,
      postcode: null,
      type: business ? 'business' : 'consumer',
      vatIdValidation: req.vatIdValidation,
      vatIdCheck: vatIdCheckOf({ vatId: req.buyer.vatId ?? null, status: business ? 'valid' : 'not_given' }),
      vatIdTreatment: business ? 'business' : 'consumer',
    },
    seller: { homeCountry: 'DE', ossEnabled: true, ossThresholdExceeded: true },
    date: req.date ?? '2026-06-15',
  });
}

async function collect(gen: AsyncGenerator<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of gen) parts.push(c);
  return Buffer.concat(parts);
}

/** Checks every file of a DATEV zip with the format checker; returns the files' rows. */
function checkDatevZip(zip: Buffer) {
  const files = unzipSync(new Uint8Array(zip));
  const names = Object.keys(files).sort();
  const postingFiles = names.filter((n) => n.startsWith('EXTF_Buchungsstapel_'));
  const debtorFiles = names.filter((n) => n.startsWith('EXTF_Debitoren_Kreditoren_'));
  const problems: string[] = [];
  const postings: string[][] = [];
  for (const n of postingFiles) {
    const r = checkPostings(Buffer.from(files[n]!), n);
    problems.push(...r.problems);
    postings.push(...r.file.rows);
  }
  const debtors: string[][] = [];
  for (const n of debtorFiles) {
    const r = checkDebtors(Buffer.from(files[n]!), n);
    problems.push(...r.problems);
    debtors.push(...r.file.rows);
  }
  return { names, postingFiles, debtorFiles, problems, postings, debtors, files };
}

describe('DATEV and GDPdU exports on PostgreSQL', () => {
  let store: DroppableStore;
  let deps: InvoiceDeps & GdpduDeps;
  let now = new Date('2026-06-15T10:00:00Z');
  const clock: Clock = { now: () => now } as Clock;
  const providers = new Map<string, string>();
  const taxRecords: TaxRecord[] = [];
  const key: OrgKey = { organizationId: newObjectId(), mode: 'live' };
  const siteId = newObjectId();
  const clients: Record<string, string> = {};

  async function client(name: string, body: Record<string, unknown>): Promise<string> {
    const input = decodeJson(billingRpc.createClient.request, JSON.stringify({ client: { name, ...body } }));
    const c = await createClient(deps, key, input.client, 'user:test', false);
    clients[name] = c.id;
    return c.id;
  }

  async function invoice(clientId: string, items: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
    const draft = await createInvoice(
      deps,
      key,
      JSON.stringify({ siteId, clientId, currency: 'EUR', items, paymentTermsDays: 14, ...extra }),
    );
    return issueInvoice(deps, key, draft.id);
  }

  const statusEvent = (inv: { id: string }, t: LinkTransaction) =>
    kitStatusEvent(clock.now().toISOString(), key, inv.id, t, 1, undefined, { siteId });

  /** Pays `amount` of an invoice through a payment link, by a transaction of `provider`. */
  async function pay(inv: { id: string }, amount: number, provider: string) {
    const link = await createPaymentLink(deps, key, inv.id, { amount }, null);
    const t = { transactionId: newObjectId(), checkoutId: link.checkoutId, amount };
    providers.set(t.transactionId, provider);
    await applyTransactionToInvoice(deps, statusEvent(inv, t));
    return t;
  }

  async function refund(inv: { id: string }, t: LinkTransaction, amount: number) {
    const at = clock.now().toISOString();
    const refunded = { refundId: 're1', amount, refundedTotal: amount };
    await applyRefundToInvoice(deps, refundEvent(at, key, inv.id, t, refunded, { siteId }));
  }

  async function chargeback(inv: { id: string }, t: LinkTransaction) {
    const at = clock.now().toISOString();
    const lost = { chargebackId: 'dp_1', outcome: 'lost' as const };
    await applyChargebackToInvoice(
      deps,
      chargebackEvent(at, key, inv.id, t, lost, `chargeback-${t.transactionId}`, { siteId }),
    );
  }

  const datev = (body: Record<string, unknown>, options: { maxPerFile?: number } = {}) =>
    exportDatev(deps, key, decodeJson(datevExportRequest, JSON.stringify(body)), 'user:test', options);

  let invoices: Record<string, { id: string; number: string | null }> = {};

  beforeAll(async () => {
    store = await billingStore('billing_datev_test');
    deps = {
      ...invoiceDeps(store, clock, {
        tax: {
          settings: async () => ({ homeCountry: 'DE', vatId: 'DE123456789', viesEnabled: false }),
          calculate: async (req) => calculate(req),
        },
        checkout: { createCheckout: linkCheckout() },
      }),
      // Checkout's transactions and the tax service's ledger stand in here (their own suites test them).
      dataIo: {
        taxRates: async () => [],
        createTaxRate: async () => Promise.reject(new Error('not in this suite')),
        transactions: async () => [],
        transactionProviders: async (_k, ids) =>
          new Map(ids.flatMap((id) => (providers.has(id) ? [[id, providers.get(id)!] as const] : []))),
        taxRecords: async (_k, from, to, page, limit) =>
          taxRecords
            .filter((r) => r.taxPointDate >= from && r.taxPointDate <= to)
            .slice((page - 1) * limit, page * limit),
      },
      gdpduDtdPath: DTD_BUILT,
    };
    await updateInvoicingSettings(
      deps,
      key,
      JSON.stringify({
        enabled: true,
        companyName: 'Bäckerei Schäfer GmbH',
        companyAddress: { street: 'Hauptstraße 5', city: 'München', postalCode: '80331', country: 'DE' },
        companyEmail: 'buchhaltung@schaefer.example',
        timeZone: 'Europe/Berlin',
        datev: {
          consultantNumber: 29098,
          clientNumber: 55003,
          chart: 'SKR03',
          clearing: { byProvider: { provider_a: 1361 } },
        },
      }),
    );
    await client('Müller & Söhne GmbH', {
      email: 'ap@mueller.example',
      address: { street: 'Königstraße 1', city: 'Köln', postalCode: '50667', country: 'DE' },
      taxInfo: { taxId: { plaintext: 'DE811569869' }, taxIdType: 'vat', taxCountry: 'DE' },
    });
    await client('Élodie Dupont', {
      email: 'elodie@example.fr',
      address: { street: '3 rue de la Paix', city: 'Paris', postalCode: '75002', country: 'FR' },
    });
    await client('Société Générale de Test', {
      address: { street: '1 avenue Foch', city: 'Lyon', postalCode: '69006', country: 'FR' },
      taxInfo: { taxId: { plaintext: 'FR40303265045' }, taxIdType: 'vat', taxCountry: 'FR' },
    });
    await client('Acme Inc.', {
      address: { street: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' },
    });
    const de = clients['Müller & Söhne GmbH']!;
    invoices = {
      domestic: await invoice(
        de,
        [
          { description: 'Beratung "Kasse"', quantity: 2, unitPrice: 11900, amountType: 'gross', itemType: 'service' },
          { description: 'Fachbuch', quantity: 1, unitPrice: 2140, amountType: 'gross', itemType: 'goods', taxRate: 7 },
        ],
        { servicePeriod: { start: '2026-06-01', end: '2026-06-10' } },
      ),
      oss: await invoice(clients['Élodie Dupont']!, [
        { description: 'E-Book', quantity: 1, unitPrice: 1200, amountType: 'gross', itemType: 'digital_service' },
      ]),
      reverseCharge: await invoice(clients['Société Générale de Test']!, [
        { description: 'Wartung', quantity: 1, unitPrice: 50000, amountType: 'gross', itemType: 'service' },
      ]),
      export: await invoice(clients['Acme Inc.']!, [
        { description: 'Lizenz', quantity: 3, unitPrice: 10000, amountType: 'gross', itemType: 'service' },
      ]),
      voided: await invoice(de, [
        { description: 'Fehlbuchung', quantity: 1, unitPrice: 5950, amountType: 'gross', itemType: 'service' },
      ]),
    };
    await voidInvoice(deps, key, invoices.voided!.id, JSON.stringify({ reason: 'issued by mistake' }), 'user:test');
    await pay(invoices.domestic!, 25940, 'provider_a');
    const ossPayment = await pay(invoices.oss!, 1200, 'provider_b');
    await refund(invoices.oss!, ossPayment, 500);
    const rcPayment = await pay(invoices.reverseCharge!, 50000, 'provider_a');
    await chargeback(invoices.reverseCharge!, rcPayment);
    taxRecords.push({
      id: newObjectId(),
      organizationId: key.organizationId,
      mode: 'live',
      siteId,
      sourceKind: 'invoice',
      sourceId: invoices.oss!.id,
      sourceEventId: 'evt-1',
      entryType: 'sale',
      recognitionMode: 'accrual',
      taxPointDate: '2026-06-15',
      taxPointAt: null,
      currency: 'EUR',
      totals: { net: 1000, tax: 200, gross: 1200 },
      lines: [
        {
          taxCountry: 'FR',
          taxRateCode: 'VAT_FR_20',
          taxRate: 20,
          rateType: 'standard',
          rateVersion: null,
          decision: 'oss_destination',
          reason: 'OSS',
          itemType: 'digital_service',
          net: 1000,
          tax: 200,
        },
      ],
      breakdown: [{ taxRate: 20, taxRateCode: 'VAT_FR_20', taxableBase: 1000, taxAmount: 200 }],
      buyer: {
        country: 'FR',
        type: 'consumer',
        vatIdCheck: vatIdCheckOf(),
      },
      seller: { homeCountry: 'DE', ossEnabled: true, ossThresholdExceeded: true },
      eur: { rate: 1, rateDate: '2026-06-15', net: 1000, tax: 200 },
      correctsRecordId: null,
      linkedTransactionId: null,
      linkedInvoiceId: invoices.oss!.id,
      createdAt: '2026-06-15T10:00:00.000Z',
    });
  });
  afterAll(() => dropStore(store));

  it("exports the month as EXTF files that follow the format's field rules, with the accounts and tax keys of each case", async () => {
    const zip = await collect(datev({ from: '2026-06-01', to: '2026-06-30' }));
    const out = checkDatevZip(zip);
    expect(out.problems).toEqual([]);
    expect(out.postingFiles).toEqual(['EXTF_Buchungsstapel_20260601_20260630_001.csv']);
    expect(out.debtorFiles).toEqual(['EXTF_Debitoren_Kreditoren_20260601_20260630.csv']);

    const raw = iconv.decode(Buffer.from(out.files[out.postingFiles[0]!]!), 'win1252').split('\r\n')[0]!;
    expect(raw.startsWith('"EXTF";700;21;"Buchungsstapel";13;')).toBe(true);
    const header = out.postings.length > 0 ? raw.split(';') : [];
    expect(header[10]).toBe('29098');
    expect(header[11]).toBe('55003');
    expect(header[12]).toBe('20260101');
    expect(header[14]).toBe('20260601');
    expect(header[15]).toBe('20260630');

    // Umlauts are single Windows-1252 bytes (ü = 0xFC), never UTF-8 pairs.
    const bytes = Buffer.from(out.files[out.postingFiles[0]!]!);
    expect(bytes.includes(0xfc)).toBe(true);

    const by = (doc: string) => out.postings.filter((r) => r[10] === doc.replace(/[^A-Za-z0-9$&%*+\-/]/g, '-'));
    const n = (k: string) => invoices[k]!.number!;
    const debtorOf = (name: string) => {
      const row = out.debtors.find((r) => r[1] === name || r[5] === name);
      return row?.[0];
    };
    // Domestic: one row per rate, automatic accounts 8400 / 8300 without a key, the service period.
    const dom = by(n('domestic'));
    const domInvoice = dom.filter((r) => r[6] === debtorOf('Müller & Söhne GmbH'));
    expect(domInvoice.map((r) => [r[0], r[1], r[7], r[8], r[9]])).toEqual([
      ['238,00', 'S', '8400', '', '1506'],
      ['21,40', 'S', '8300', '', '1506'],
    ]);
    expect(domInvoice[0]![114]).toBe('10062026');
    expect(domInvoice[0]![13]).toContain('Müller');
    // Its payment by provider_a books to that provider's clearing account against the debtor.
    const domPay = dom.filter((r) => r[6] === '1361');
    expect(domPay.map((r) => [r[0], r[1], r[7]])).toEqual([['259,40', 'S', debtorOf('Müller & Söhne GmbH')]]);

    // OSS: general revenue account with tax key 44 and the member state and rate in the EU columns.
    const oss = by(n('oss'));
    expect(oss.find((r) => r[7] === '8200')).toMatchObject({ 0: '12,00', 1: 'S', 8: '44', 39: 'FR', 40: '20,00' });
    // Paid by provider_b (default clearing 1360), partly refunded: the refund credits clearing.
    expect(oss.filter((r) => r[6] === '1360').map((r) => [r[0], r[1]])).toEqual([
      ['12,00', 'S'],
      ['5,00', 'H'],
    ]);

    // Reverse charge: 8336, the buyer's VAT ID in "EU-Land u. UStID"; the lost dispute reverses the payment.
    const rc = by(n('reverseCharge'));
    expect(rc.find((r) => r[7] === '8336')).toMatchObject({ 0: '500,00', 1: 'S', 8: '', 39: 'FR40303265045' });
    expect(rc.filter((r) => r[6] === '1361').map((r) => [r[0], r[1], r[13]])).toEqual([
      ['500,00', 'S', expect.stringContaining('Zahlung')],
      ['500,00', 'H', expect.stringContaining('Rückbelastung')],
    ]);
    // Export: 8120.
    expect(by(n('export')).map((r) => [r[0], r[7]])).toEqual([['300,00', '8120']]);
    // The voided invoice and its credit note cancel out (credit note: H, its own number).
    expect(by(n('voided')).map((r) => [r[0], r[1], r[7]])).toEqual([['59,50', 'S', '8400']]);
    const credit = out.postings.filter((r) => (r[13] ?? '').startsWith('Gutschrift'));
    expect(credit.map((r) => r[1])).toEqual(credit.map(() => 'H'));
    expect(credit.length).toBeGreaterThanOrEqual(3);

    // Master data: each client booked, companies under the company name with their VAT ID.
    expect(out.debtors).toHaveLength(4);
    const mueller = out.debtors.find((r) => r[1] === 'Müller & Söhne GmbH')!;
    expect([mueller[6], mueller[8], mueller[9], mueller[15], mueller[18]]).toEqual([
      '2',
      'DE',
      '811569869',
      'Königstraße 1',
      'Köln',
    ]);
    expect(out.debtors.find((r) => r[5] === 'Élodie Dupont')).toBeDefined();
    expect(new Set(out.debtors.map((r) => r[0])).size).toBe(4);

    // The export is recorded with its counts and the digest of the bytes delivered.
    const list = await listDatevExports(deps, key, { page: 1, limit: 5 });
    expect(list.items[0]).toMatchObject({
      from: '2026-06-01',
      to: '2026-06-30',
      select: 'all',
      status: 'completed',
      postings: out.postings.length,
      counts: { invoices: 5, payments: 3, refunds: 1, chargebacks: 1 },
      debtors: 4,
      files: 1,
      digest: createHash('sha256').update(zip).digest('hex'),
      bytes: zip.length,
    });
    expect(list.items[0]!.counts.creditNotes).toBe(credit.length);
  });

  it('takes only what no earlier export delivered when asked for what is not yet exported', async () => {
    const first = checkDatevZip(await collect(datev({ to: '2026-06-30', select: 'not_exported' })));
    expect(first.problems).toEqual([]);
    // The month went out in full above: nothing is left of it.
    expect(first.postings).toEqual([]);

    now = new Date('2026-06-20T09:00:00Z');
    const later = await invoice(clients['Müller & Söhne GmbH']!, [
      { description: 'Nachbestellung', quantity: 1, unitPrice: 1190, amountType: 'gross', itemType: 'service' },
    ]);
    await pay(later, 1190, 'provider_a');
    const second = checkDatevZip(await collect(datev({ to: '2026-06-30', select: 'not_exported' })));
    expect(second.problems).toEqual([]);
    expect(second.postings.map((r) => [r[0], r[6], r[7], r[10]])).toEqual([
      ['11,90', second.postings[0]![6], '8400', later.number],
      ['11,90', '1361', second.postings[0]![6], later.number],
    ]);
    expect(second.debtors.map((r) => r[1])).toEqual(['Müller & Söhne GmbH']);
    // Again: nothing new; the same client keeps its debtor account.
    const third = checkDatevZip(await collect(datev({ to: '2026-06-30', select: 'not_exported' })));
    expect(third.postings).toEqual([]);
    // A range export still gives the whole range.
    const all = checkDatevZip(await collect(datev({ from: '2026-06-01', to: '2026-06-30' })));
    expect(all.postings.length).toBe(first.postings.length + 16);
  });

  it('splits the postings into files with a header each, and records the files', async () => {
    now = new Date('2026-06-20T10:00:00Z');
    const out = checkDatevZip(await collect(datev({ from: '2026-06-01', to: '2026-06-30' }, { maxPerFile: 5 })));
    expect(out.problems).toEqual([]);
    expect(out.postings).toHaveLength(16);
    expect(out.postingFiles).toHaveLength(4);
    expect((await listDatevExports(deps, key, { page: 1, limit: 1 })).items[0]).toMatchObject({
      files: 4,
      postings: 16,
    });
  });

  it('records an export cut off before its end as failed, and its postings stay not exported', async () => {
    now = new Date('2026-06-25T09:00:00Z');
    const more = await invoice(clients['Acme Inc.']!, [
      { description: 'Support', quantity: 1, unitPrice: 7000, amountType: 'gross', itemType: 'service' },
    ]);
    const gen = datev({ to: '2026-06-30', select: 'not_exported' });
    const firstChunk = await gen.next();
    expect(firstChunk.done).toBe(false);
    // While it runs, no other export of the organization may start.
    await expect(collect(datev({ to: '2026-06-30' }))).rejects.toBeInstanceOf(ConflictError);
    await gen.return(undefined);
    const list = await listDatevExports(deps, key, { page: 1, limit: 1 });
    expect(list.items[0]).toMatchObject({ status: 'failed', digest: null });
    const again = checkDatevZip(await collect(datev({ to: '2026-06-30', select: 'not_exported' })));
    expect(again.postings.map((r) => [r[0], r[7], r[10]])).toEqual([['70,00', '8120', more.number]]);
  });

  it('refuses an export without adviser numbers and a range across fiscal years, writing nothing', async () => {
    const other: OrgKey = { organizationId: newObjectId(), mode: 'live' };
    const before = (await listDatevExports(deps, other, { page: 1, limit: 5 })).total;
    await expect(collect(exportDatev(deps, other, decodeJson(datevExportRequest, '{}'), null))).rejects.toMatchObject({
      code: 'DATEV_SETTINGS_MISSING',
    });
    await expect(collect(datev({ from: '2025-12-01', to: '2026-01-31' }))).rejects.toBeInstanceOf(ValidationError);
    await expect(collect(datev({ from: '2026-06-30', to: '2026-06-01' }))).rejects.toBeInstanceOf(ValidationError);
    expect(() => datev({ from: '2026-02-30' })).toThrow(/from/);
    expect((await listDatevExports(deps, other, { page: 1, limit: 5 })).total).toBe(before);
    // Bad accounts in the settings are refused naming the field.
    await expect(
      updateInvoicingSettings(deps, key, JSON.stringify({ datev: { debtors: { firstAccount: 8400 } } })),
    ).rejects.toMatchObject({ field: 'datev.debtors.firstAccount' });
  });

  it('exports a GDPdU package whose index.xml validates against the DTD and describes every table', async () => {
    expect(existsSync(DTD_BUILT), `${DTD_BUILT} is made by the build (pnpm run build)`).toBe(true);
    const zip = await collect(exportGdpdu(deps, key, { fiscalYear: 2026 }));
    const files = unzipSync(new Uint8Array(zip));
    const index = Buffer.from(files['index.xml']!);
    const dtd = Buffer.from(files[DTD_NAME]!);
    expect(index.toString('utf8')).toContain(`<!DOCTYPE DataSet SYSTEM "${DTD_NAME}">`);
    // The DTD shipped is the published one, byte for byte.
    expect(dtd.equals(readFileSync(DTD_SHARED))).toBe(true);
    const lint = xmllintValid(index, dtd);
    expect(lint.output).toBe('');
    expect(lint.ok).toBe(true);

    const tables = describedTables(index);
    expect(tables.map((t) => t.url)).toEqual([
      'clients.csv',
      'invoices.csv',
      'invoice_lines.csv',
      'credit_notes.csv',
      'payments.csv',
      'tax_records.csv',
    ]);
    const rows: Record<string, string[][]> = {};
    for (const t of tables) {
      expect(files[t.url], t.url).toBeDefined();
      const checked = checkTable(t, Buffer.from(files[t.url]!));
      expect(checked.problems).toEqual([]);
      rows[t.url] = checked.rows;
    }
    expect(rows['clients.csv']).toHaveLength(4);
    expect(rows['invoices.csv']).toHaveLength(7);
    const dom = rows['invoices.csv']!.find((r) => r[1] === invoices.domestic!.number)!;
    expect([dom[3], dom[5], dom[6], dom[8], dom[13]]).toEqual([
      '15.06.2026',
      '01.06.2026',
      '10.06.2026',
      'Müller & Söhne GmbH',
      '259,40',
    ]);
    expect(
      rows['invoice_lines.csv']!.filter((r) => r[0] === invoices.domestic!.id).map((r) => [r[1], r[6], r[11]]),
    ).toEqual([
      ['1', '19,00', '238,00'],
      ['2', '7,00', '21,40'],
    ]);
    expect(rows['payments.csv']!.map((r) => [r[1], r[7]]).sort()).toEqual(
      [
        ['chargeback', '-500,00'],
        ['payment', '11,90'],
        ['payment', '12,00'],
        ['payment', '259,40'],
        ['payment', '500,00'],
        ['refund', '-5,00'],
      ].sort(),
    );
    expect(rows['tax_records.csv']).toEqual([
      expect.arrayContaining(['FR', 'VAT_FR_20', '20,00', 'oss_destination', '10,00', '2,00']),
    ]);
    expect(rows['credit_notes.csv']!.length).toBeGreaterThanOrEqual(3);
  });
});
