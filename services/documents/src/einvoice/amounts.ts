import type { EInvoiceDocument, EInvoiceLine, VatCategory } from '@paymesh/contracts';

/** Decimals of a currency's minor unit (EUR 2, JPY 0), from the ICU data Node ships. */
export function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Minor units as an XML decimal in major units (`1999` EUR -> `19.99`, `-5` -> `-0.05`). */
export function decimal(minor: number, digits: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (digits === 0) return `${sign}${abs}`;
  const s = String(abs).padStart(digits + 1, '0');
  return `${sign}${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

/** A percentage as written in the XML (`19`, `7.7`, `0`). */
export function percent(rate: number): string {
  return String(Math.round(rate * 1000) / 1000);
}

/**
 * The item net price (BT-146) and its base quantity (BT-149) of a line: the unit price when the net
 * amount divides by the quantity, else the whole line net for the whole quantity, so that
 * quantity x price / base quantity is the line net exactly (EN 16931 / PEPPOL-EN16931-R120).
 */
export function linePrice(line: Pick<EInvoiceLine, 'net' | 'quantity'>): {
  price: number;
  baseQuantity: number | null;
} {
  if (line.net % line.quantity === 0) return { price: line.net / line.quantity, baseQuantity: null };
  return { price: line.net, baseQuantity: line.quantity };
}

/** One VAT breakdown group (BG-23): a category and rate with its taxable base and tax. */
export interface VatGroup {
  category: VatCategory;
  rate: number;
  taxable: number;
  tax: number;
}

/** Lines grouped by (category, rate), in first-seen order. */
export function vatGroups(lines: readonly EInvoiceLine[]): VatGroup[] {
  const groups = new Map<string, VatGroup>();
  for (const l of lines) {
    const key = `${l.category}|${percent(l.taxRate)}`;
    const g = groups.get(key) ?? { category: l.category, rate: l.taxRate, taxable: 0, tax: 0 };
    g.taxable += l.net;
    g.tax += l.tax;
    groups.set(key, g);
  }
  return [...groups.values()];
}

/** VATEX exemption reasons of the zero-tax categories that need one (BR-AE-10, BR-IC-10, BR-G-10). */
export const EXEMPTION: Partial<Record<VatCategory, { code: string; text: string }>> = {
  AE: { code: 'VATEX-EU-AE', text: 'Reverse charge' },
  K: { code: 'VATEX-EU-IC', text: 'Intra-Community supply' },
  G: { code: 'VATEX-EU-G', text: 'Export outside the EU' },
};

/** Sums of the document as the XML states them (BT-106, BT-109, BT-110, BT-112, BT-115). */
export function documentSums(doc: EInvoiceDocument): { lineNet: number; tax: number; gross: number } {
  const lineNet = doc.lines.reduce((s, l) => s + l.net, 0);
  const tax = doc.lines.reduce((s, l) => s + l.tax, 0);
  return { lineNet, tax, gross: lineNet + tax };
}

/** UN/ECE Recommendation 20 unit of every line: "one" (C62); the platform's quantities are pieces. */
export const UNIT_CODE = 'C62';
