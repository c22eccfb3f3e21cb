import type { TaxDecision, TaxItemType, TaxRecord } from '@paymesh/contracts';

/** EU-wide threshold for intra-EU B2C distance sales: EUR 10 000 (in cents) per calendar year. */
export const OSS_THRESHOLD_EUR_CENTS = 1_000_000;

export interface OssThresholdStatus {
  year: number;
  currency: 'EUR';
  threshold: number;
  currentTotal: number;
  exceeded: boolean;
  /** Entries with distance sales that could not be counted: not in EUR, and no exchange rates yet. */
  unconvertedEntries: number;
}

/**
 * Status against the threshold. Above it, sales are taxed in the buyer's member state from the
 * sale that crosses it on; at exactly the threshold the seller is still below ("exceeds").
 */
export function ossThresholdStatus(
  year: number,
  currentTotalEurCents: number,
  unconvertedEntries = 0,
): OssThresholdStatus {
  return {
    year,
    currency: 'EUR',
    threshold: OSS_THRESHOLD_EUR_CENTS,
    currentTotal: currentTotalEurCents,
    exceeded: currentTotalEurCents > OSS_THRESHOLD_EUR_CENTS,
    unconvertedEntries,
  };
}

/** Decisions of lines that are intra-EU B2C distance sales (taxed at destination, or at origin below the threshold). */
const DISTANCE_SALE_DECISIONS: ReadonlySet<TaxDecision> = new Set(['oss_destination', 'below_threshold_origin']);

export type LedgerEntryForOss = Pick<
  TaxRecord,
  'sourceKind' | 'sourceId' | 'linkedTransactionId' | 'currency' | 'lines' | 'buyer' | 'seller' | 'eur'
>;

/**
 * Intra-EU B2C distance sales in a set of ledger entries (one calendar year), in EUR cents: the
 * net amounts of lines sold to consumers whose destination (the line's tax country, or the buyer's
 * country when the line was taxed at origin) is in the EU VAT area for the line's item type and not
 * the seller's home country. Sales count positive, reversals and credits negative.
 *
 * A sale is recorded once: a transaction that pays an invoice recorded in the ledger is left out
 * (the invoice's entries count). Entries not in EUR are counted in `unconvertedEntries` instead.
 */
export function ossDistanceSales(
  entries: readonly LedgerEntryForOss[],
  inEuVatArea: (country: string, itemType: TaxItemType) => boolean,
): { totalEurCents: number; unconvertedEntries: number } {
  const paidInvoices = new Set(
    entries
      .filter((e) => e.sourceKind !== 'transaction' && e.linkedTransactionId !== null)
      .map((e) => e.linkedTransactionId),
  );
  let total = 0;
  let unconverted = 0;
  for (const e of entries) {
    if (e.buyer.type !== 'consumer' || (e.sourceKind === 'transaction' && paidInvoices.has(e.sourceId))) continue;
    const home = e.seller.homeCountry;
    const net = e.lines
      .filter((l) => {
        if (!DISTANCE_SALE_DECISIONS.has(l.decision)) return false;
        const destination = l.taxCountry !== null && l.taxCountry !== home ? l.taxCountry : e.buyer.country;
        return destination !== home && inEuVatArea(destination, l.itemType);
      })
      .reduce((sum, l) => sum + l.net, 0);
    if (net === 0) continue;
    if (e.eur === null) unconverted++;
    else total += Math.round(net * e.eur.rate);
  }
  return { totalEurCents: total, unconvertedEntries: unconverted };
}
