import type {
  ByCountryDetailRow,
  ByCountryRow,
  CurrencyRow,
  EurAmounts,
  RateType,
  ReportTotals,
  RevenueByCountryRow,
  TaxDecision,
  TaxItemType,
} from '@paymesh/contracts';
import type { EurConverter } from './eur';
import type { EntryGroup, LineGroup } from './query';
import { addLines, sumBy } from './sum-by';

/**
 * The reports built from grouped ledger figures (pure). Every row is in its own currency with its
 * EUR conversion beside it; totals are per currency, plus EUR over the rows that have a rate.
 */

const byText =
  <T>(...keys: ((row: T) => string | number)[]) =>
  (a: T, b: T): number => {
    for (const key of keys) {
      const x = key(a);
      const y = key(b);
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  };

/** Rows of a country and currency: by country, then currency. */
const byCountryAndCurrency = byText<{ country: string; currency: string }>(
  (r) => r.country,
  (r) => r.currency,
);

/** Country of a line: the member state whose VAT applies, else (outside the EU's VAT) the buyer's. */
const countryOf = (g: LineGroup): string => g.taxCountry ?? g.buyerCountry;

export function totalsOf(
  rows: { currency: string; net: number; tax: number; gross: number; eur: EurAmounts | null }[],
): ReportTotals {
  const byCurrency = new Map<string, { currency: string; net: number; tax: number; gross: number }>();
  const eur = { net: 0, tax: 0, gross: 0 };
  const unconverted = new Set<string>();
  for (const r of rows) {
    const t = byCurrency.get(r.currency) ?? { currency: r.currency, net: 0, tax: 0, gross: 0 };
    t.net += r.net;
    t.tax += r.tax;
    t.gross += r.gross;
    byCurrency.set(r.currency, t);
    if (r.eur) {
      eur.net += r.eur.net;
      eur.tax += r.eur.tax;
      eur.gross += r.eur.gross;
    } else unconverted.add(r.currency);
  }
  return {
    byCurrency: [...byCurrency.values()].sort(byText((t) => t.currency)),
    eur,
    unconverted: [...unconverted].sort(),
  };
}

export function byCountryRows(groups: LineGroup[], eur: EurConverter): ByCountryRow[] {
  const rows = sumBy(
    groups.map((g) => ({ country: countryOf(g), currency: g.currency, net: g.net, tax: g.tax, lines: g.lines })),
    (r) => `${r.country}|${r.currency}`,
    addLines,
  );
  return rows.map((r) => ({ ...r, gross: r.net + r.tax, eur: eur.amounts(r.currency, r) })).sort(byCountryAndCurrency);
}

export function byCountryDetailRows(groups: LineGroup[], eur: EurConverter): ByCountryDetailRow[] {
  const rows = sumBy(
    groups,
    (g) => [countryOf(g), g.currency, g.taxRate, g.taxRateCode, g.rateType, g.decision, g.itemType].join('|'),
    addLines,
  );
  return rows
    .map((g) => ({
      country: countryOf(g),
      currency: g.currency,
      taxRate: g.taxRate,
      taxRateCode: g.taxRateCode,
      rateType: g.rateType as RateType | null,
      decision: g.decision as TaxDecision,
      itemType: g.itemType as TaxItemType,
      net: g.net,
      tax: g.tax,
      gross: g.net + g.tax,
      lines: g.lines,
      eur: eur.amounts(g.currency, g),
    }))
    .sort(
      byText(
        (r) => r.country,
        (r) => r.currency,
        (r) => -r.taxRate,
        (r) => r.taxRateCode,
        (r) => r.decision,
        (r) => r.itemType,
      ),
    );
}

export function revenueByCountryRows(groups: EntryGroup[], eur: EurConverter): RevenueByCountryRow[] {
  const rows = sumBy(
    groups.map((g) => ({
      country: g.buyerCountry,
      currency: g.currency,
      net: g.net,
      tax: g.tax,
      gross: g.gross,
      sales: g.entryType === 'sale' ? g.entries : 0,
      corrections: g.entryType === 'sale' ? 0 : g.entries,
    })),
    (r) => `${r.country}|${r.currency}`,
    (into, r) => {
      into.net += r.net;
      into.tax += r.tax;
      into.gross += r.gross;
      into.sales += r.sales;
      into.corrections += r.corrections;
    },
  );
  return rows.map((r) => ({ ...r, eur: grossEur(eur, r) })).sort(byCountryAndCurrency);
}

export function currencyRows(groups: EntryGroup[], eur: EurConverter): CurrencyRow[] {
  const rows = sumBy(
    groups.map((g) => ({ currency: g.currency, net: g.net, tax: g.tax, gross: g.gross, entries: g.entries })),
    (r) => r.currency,
    (into, r) => {
      into.net += r.net;
      into.tax += r.tax;
      into.gross += r.gross;
      into.entries += r.entries;
    },
  );
  return rows.map((r) => ({ ...r, eur: grossEur(eur, r) })).sort(byText((r) => r.currency));
}

/** EUR amounts of an entry-level row: its gross is the entries' recorded gross, converted on its own. */
function grossEur(
  eur: EurConverter,
  r: { currency: string; net: number; tax: number; gross: number },
): EurAmounts | null {
  const a = eur.amounts(r.currency, r);
  const gross = eur.cents(r.currency, r.gross);
  return a && gross !== null ? { ...a, gross } : null;
}
