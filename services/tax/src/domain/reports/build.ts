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

/** Sums rows by a key, keeping the first row's fields. */
function sumBy<T extends { net: number; tax: number }>(
  rows: T[],
  key: (r: T) => string,
  add: (into: T, r: T) => void,
): T[] {
  const out = new Map<string, T>();
  for (const r of rows) {
    const k = key(r);
    const seen = out.get(k);
    if (seen) add(seen, r);
    else out.set(k, { ...r });
  }
  return [...out.values()];
}

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
    (into, r) => {
      into.net += r.net;
      into.tax += r.tax;
      into.lines += r.lines;
    },
  );
  return rows
    .map((r) => ({ ...r, gross: r.net + r.tax, eur: eur.amounts(r.currency, r) }))
    .sort(
      byText(
        (r) => r.country,
        (r) => r.currency,
      ),
    );
}

export function byCountryDetailRows(groups: LineGroup[], eur: EurConverter): ByCountryDetailRow[] {
  const rows = sumBy(
    groups,
    (g) => [countryOf(g), g.currency, g.taxRate, g.taxRateCode, g.rateType, g.decision, g.itemType].join('|'),
    (into, g) => {
      into.net += g.net;
      into.tax += g.tax;
      into.lines += g.lines;
    },
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
  const rows = new Map<string, Omit<RevenueByCountryRow, 'eur'>>();
  for (const g of groups) {
    const k = `${g.buyerCountry}|${g.currency}`;
    const r = rows.get(k) ?? {
      country: g.buyerCountry,
      currency: g.currency,
      net: 0,
      tax: 0,
      gross: 0,
      sales: 0,
      corrections: 0,
    };
    r.net += g.net;
    r.tax += g.tax;
    r.gross += g.gross;
    if (g.entryType === 'sale') r.sales += g.entries;
    else r.corrections += g.entries;
    rows.set(k, r);
  }
  return [...rows.values()]
    .map((r) => ({ ...r, eur: grossEur(eur, r) }))
    .sort(
      byText(
        (r) => r.country,
        (r) => r.currency,
      ),
    );
}

export function currencyRows(groups: EntryGroup[], eur: EurConverter): CurrencyRow[] {
  const rows = new Map<string, Omit<CurrencyRow, 'eur'>>();
  for (const g of groups) {
    const r = rows.get(g.currency) ?? { currency: g.currency, net: 0, tax: 0, gross: 0, entries: 0 };
    r.net += g.net;
    r.tax += g.tax;
    r.gross += g.gross;
    r.entries += g.entries;
    rows.set(g.currency, r);
  }
  return [...rows.values()].map((r) => ({ ...r, eur: grossEur(eur, r) })).sort(byText((r) => r.currency));
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
