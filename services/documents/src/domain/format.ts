import type { DocumentKind, DocumentLine, DocumentView } from '@paymesh/contracts';

/** Minor units -> display amount with the currency's own number of decimals (EUR 2, JPY 0). */
export function formatMoney(minor: number, currency: string): string {
  const fmt = new Intl.NumberFormat('en-GB', { style: 'currency', currency });
  const digits = fmt.resolvedOptions().maximumFractionDigits ?? 2;
  return fmt.format(minor / 10 ** digits);
}

/** An IBAN in groups of four, as printed (`DE89 3704 0044 0532 0130 00`). */
export function formatIban(iban: string): string {
  return iban.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');
}

export function formatPercent(rate: number): string {
  return `${new Intl.NumberFormat('en-GB', { maximumFractionDigits: 3 }).format(rate)} %`;
}

const TITLES: Record<DocumentKind, string> = {
  invoice: 'Invoice',
  credit_note: 'Credit note',
  proforma: 'Pro forma invoice',
  reminder: 'Payment reminder',
};

export function titleOf(kind: DocumentKind): string {
  return TITLES[kind];
}

/** Legal notes a tax decision requires on the document, once each, in a stable order. */
export function taxNotesOf(lines: Pick<DocumentLine, 'decision'>[]): string[] {
  const decisions = new Set(lines.map((l) => l.decision));
  const notes: string[] = [];
  if (decisions.has('reverse_charge'))
    notes.push(
      'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).',
    );
  if (decisions.has('intra_community_supply'))
    notes.push('VAT-exempt intra-Community supply of goods (Article 138 of Council Directive 2006/112/EC).');
  if (decisions.has('export'))
    notes.push('VAT-exempt export outside the EU (Article 146 of Council Directive 2006/112/EC).');
  return notes;
}

export function paymentTermsOf(view: Pick<DocumentView, 'kind' | 'dueDate' | 'paymentTermsDays'>): string | null {
  if (view.kind === 'credit_note') return null;
  if (view.paymentTermsDays !== null && view.dueDate)
    return `Payable within ${view.paymentTermsDays} days, by ${view.dueDate}.`;
  if (view.dueDate) return `Payable by ${view.dueDate}.`;
  if (view.paymentTermsDays !== null) return `Payable within ${view.paymentTermsDays} days of the invoice date.`;
  return null;
}
