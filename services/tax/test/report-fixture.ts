import { taxReportRequest, type TaxDecision, type TaxItemType, type TaxRecord } from '@paymesh/contracts';
import type { OrgKey } from '../src/app/deps';
import { taxReport } from '../src/app/tax-report';
import { taxRecordId } from '../src/domain/ledger';
import type { TaxRecordDoc } from '../src/domain/source-event';
import { TAX_RECORDS } from '../src/store/collections';
import type { TaxHarness } from './harness';
import { updateTaxSettings } from './wire';
import { vatIdNotGiven } from '../../../libs/contracts/test/tax-kit';

/**
 * A hand-computed ledger for the report tests: a German seller (OSS) in Q1 and Q2 2026 selling to
 * consumers in FR, NL, DE and the US and to a French business, in EUR and USD, with a refund of a
 * Q1 sale in Q2, a credit note in the quarter of its sale, an invoice paid by a transaction, and a
 * payment at 2026-03-31 22:30 UTC (Q1 in UTC, Q2 in Europe/Berlin).
 */

export const SITE = 'a'.repeat(24);
export const OTHER_SITE = 'b'.repeat(24);
/** The VAT OSS return of the fixture's second quarter, in Berlin time. */
export const OSS_Q2 = { year: 2026, quarter: 2, timezone: 'Europe/Berlin' } as const;

interface LineSpec {
  country: string | null;
  rate: number;
  code: string;
  rateType: 'standard' | 'reduced' | null;
  decision: TaxDecision;
  itemType?: TaxItemType;
  net: number;
  tax: number;
}

interface EntrySpec {
  key: string;
  sourceKind: TaxRecord['sourceKind'];
  entryType?: TaxRecord['entryType'];
  buyer: string;
  buyerType?: 'consumer' | 'business';
  currency?: string;
  taxPointDate: string;
  taxPointAt?: string | null;
  lines: LineSpec[];
  correctsKey?: string;
  linkedInvoiceKey?: string;
  siteId?: string;
}

const hex = (key: string) => taxRecordId(`fixture-${key}`, 'sale');

export function fixtureEntries(organizationId: string, mode: 'live' | 'test' = 'live'): TaxRecord[] {
  const specs: EntrySpec[] = [
    // Q1 (both zones): FR consumer pays 100.00 + 20.00; refunded in Q2 (E8).
    {
      key: 'E1',
      sourceKind: 'transaction',
      buyer: 'FR',
      taxPointDate: '2026-02-10',
      taxPointAt: '2026-02-10T10:00:00.000Z',
      lines: [oss('FR', 20, 10000, 2000)],
    },
    // 2026-03-31 22:30 UTC: Q1 in UTC, 2026-04-01 00:30 (Q2) in Berlin.
    {
      key: 'E2',
      sourceKind: 'transaction',
      buyer: 'NL',
      taxPointDate: '2026-03-31',
      taxPointAt: '2026-03-31T22:30:00.000Z',
      lines: [oss('NL', 21, 5000, 1050)],
    },
    // Invoice to a FR consumer: a digital service and reduced-rate goods; paid by E3t.
    {
      key: 'E3',
      sourceKind: 'invoice',
      buyer: 'FR',
      taxPointDate: '2026-04-15',
      lines: frInvoiceLines(),
    },
    {
      key: 'E3t',
      sourceKind: 'transaction',
      buyer: 'FR',
      taxPointDate: '2026-04-16',
      taxPointAt: '2026-04-16T08:00:00.000Z',
      linkedInvoiceKey: 'E3',
      lines: frInvoiceLines(),
    },
    // Domestic sale (DE consumer) on another site.
    {
      key: 'E4',
      sourceKind: 'transaction',
      buyer: 'DE',
      siteId: OTHER_SITE,
      taxPointDate: '2026-04-20',
      taxPointAt: '2026-04-20T12:00:00.000Z',
      lines: [
        {
          country: 'DE',
          rate: 19,
          code: 'VAT_DE_STANDARD',
          rateType: 'standard',
          decision: 'domestic',
          net: 10000,
          tax: 1900,
        },
      ],
    },
    // French business: reverse charge.
    {
      key: 'E5',
      sourceKind: 'invoice',
      buyer: 'FR',
      buyerType: 'business',
      taxPointDate: '2026-05-20',
      lines: [
        {
          country: 'FR',
          rate: 0,
          code: 'REVERSE_CHARGE',
          rateType: null,
          decision: 'reverse_charge',
          net: 50000,
          tax: 0,
        },
      ],
    },
    // US consumer in USD: export.
    {
      key: 'E6',
      sourceKind: 'transaction',
      buyer: 'US',
      currency: 'USD',
      taxPointDate: '2026-05-05',
      taxPointAt: '2026-05-05T12:00:00.000Z',
      lines: [{ country: null, rate: 0, code: 'EXPORT', rateType: null, decision: 'export', net: 8000, tax: 0 }],
    },
    // NL consumer in USD.
    {
      key: 'E7',
      sourceKind: 'transaction',
      buyer: 'NL',
      currency: 'USD',
      taxPointDate: '2026-05-10',
      taxPointAt: '2026-05-10T09:00:00.000Z',
      lines: [oss('NL', 21, 10000, 2100)],
    },
    // Refund in Q2 of the Q1 sale E1: a correction of Q1.
    {
      key: 'E8',
      sourceKind: 'transaction',
      entryType: 'reversal',
      buyer: 'FR',
      correctsKey: 'E1',
      taxPointDate: '2026-05-15',
      taxPointAt: '2026-05-15T09:00:00.000Z',
      lines: [oss('FR', 20, -10000, -2000)],
    },
    // Credit note in Q2 on the Q2 invoice E3: part of the quarter's supplies.
    {
      key: 'E9',
      sourceKind: 'credit_note',
      entryType: 'credit',
      buyer: 'FR',
      correctsKey: 'E3',
      taxPointDate: '2026-06-30',
      lines: [oss('FR', 20, -5000, -1000)],
    },
  ];
  return specs.map((s) => entry(organizationId, mode, s));
}

/** The FR invoice E3 and its payment E3t: a digital service and reduced-rate goods. */
function frInvoiceLines(): LineSpec[] {
  return [
    oss('FR', 20, 20000, 4000),
    { ...oss('FR', 5.5, 10000, 550), code: 'VAT_FR_REDUCED', rateType: 'reduced', itemType: 'goods' },
  ];
}

function oss(country: string, rate: number, net: number, tax: number): LineSpec {
  return {
    country,
    rate,
    code: `VAT_${country}_STANDARD`,
    rateType: 'standard',
    decision: 'oss_destination',
    itemType: 'digital_service',
    net,
    tax,
  };
}

function entry(organizationId: string, mode: 'live' | 'test', s: EntrySpec): TaxRecord {
  const currency = s.currency ?? 'EUR';
  const net = s.lines.reduce((a, l) => a + l.net, 0);
  const tax = s.lines.reduce((a, l) => a + l.tax, 0);
  const invoiceLike = s.sourceKind !== 'transaction';
  return {
    id: hex(s.key),
    organizationId,
    mode,
    siteId: s.siteId ?? SITE,
    sourceKind: s.sourceKind,
    sourceId: hex(`${s.key}-source`),
    sourceEventId: `fixture-${s.key}`,
    entryType: s.entryType ?? 'sale',
    recognitionMode: invoiceLike ? 'accrual' : 'cash',
    taxPointDate: s.taxPointDate,
    taxPointAt: s.taxPointAt ?? null,
    currency,
    totals: { net, tax, gross: net + tax },
    lines: s.lines.map((l) => ({
      taxCountry: l.country,
      taxRateCode: l.code,
      taxRate: l.rate,
      rateType: l.rateType,
      rateVersion: null,
      decision: l.decision,
      reason: 'fixture',
      itemType: l.itemType ?? 'digital_service',
      net: l.net,
      tax: l.tax,
    })),
    breakdown: [],
    buyer: {
      country: s.buyer,
      type: s.buyerType ?? 'consumer',
      vatIdCheck: vatIdNotGiven(),
    },
    seller: { homeCountry: 'DE', ossEnabled: true, ossThresholdExceeded: false },
    eur: currency === 'EUR' ? { rate: 1, rateDate: s.taxPointDate, net, tax } : null,
    correctsRecordId: s.correctsKey ? hex(s.correctsKey) : null,
    linkedTransactionId: null,
    linkedInvoiceId: s.linkedInvoiceKey
      ? hex(`${s.linkedInvoiceKey}-source`)
      : invoiceLike
        ? hex(`${s.key}-source`)
        : null,
    invoicePayment: s.linkedInvoiceKey !== undefined && s.sourceKind === 'transaction',
    createdAt: '2026-07-01T00:00:00.000Z',
  };
}

/** The fixture's seller: German, registered for OSS. */
const FIXTURE_SELLER = { homeCountry: 'DE', ossEnabled: true, vatId: 'DE321571435' };

/** Stores the fixture ledger as the organization's live entries and gives it the fixture's seller settings. */
export async function seedFixtureLedger(h: TaxHarness, org: OrgKey): Promise<void> {
  const col = h.store.collection<TaxRecordDoc>(TAX_RECORDS);
  for (const e of fixtureEntries(org.organizationId)) await col.insert(e);
  await updateTaxSettings(h.deps, org, JSON.stringify(FIXTURE_SELLER));
}

/** A report of the organization's ledger, its body parsed as the RPC parses it. */
export function fixtureReport<T>(h: TaxHarness, org: OrgKey, body: Record<string, unknown>): Promise<T> {
  return taxReport(h.deps, org, taxReportRequest.parse(body)) as Promise<T>;
}
