/**
 * The e-mail of an issued invoice or credit note (pure): subject and plain-text body. The document
 * itself travels as its PDF (`<number>.pdf`), rendered by the documents service (see
 * app/send-document-email.ts).
 */

export interface DocumentForEmail {
  kind: 'invoice' | 'credit_note';
  number: string;
  issueDate: string;
  dueDate: string | null;
  currency: string;
  sellerName: string;
  buyerName: string;
  /** Invoice: what is still to be paid; credit note: the amount credited. Minor units. */
  amountDue: number;
  /** The invoice a credit note corrects. */
  invoiceNumber: string | null;
  paymentUrl: string | null;
  /** The merchant's note, put first. */
  message: string | null;
}

export interface ComposedEmail {
  subject: string;
  text: string;
}

/** `1250, 'EUR'` -> `12.50 EUR`, with the currency's own number of decimals (ISO 4217 via Intl). */
export function formatMoney(minor: number, currency: string): string {
  const digits =
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const unit = 10 ** digits;
  const whole = Math.floor(abs / unit);
  const frac = digits > 0 ? `.${String(abs % unit).padStart(digits, '0')}` : '';
  return `${sign}${whole}${frac} ${currency}`;
}

const TITLES = { invoice: 'Invoice', credit_note: 'Credit note' } as const;

export function composeDocumentEmail(d: DocumentForEmail): ComposedEmail {
  const money = (n: number) => formatMoney(n, d.currency);
  const title = TITLES[d.kind];
  const dueLabel = d.kind === 'invoice' ? 'Amount due' : 'Amount credited';
  const subject = `${title} ${d.number} from ${d.sellerName}`;
  const text = [
    ...(d.message ? [d.message, ''] : []),
    `${title} ${d.number} from ${d.sellerName} to ${d.buyerName}.`,
    ...(d.invoiceNumber ? [`It corrects invoice ${d.invoiceNumber}.`] : []),
    '',
    `${dueLabel}: ${money(d.amountDue)}`,
    `Issue date: ${d.issueDate}`,
    ...(d.dueDate ? [`Due date: ${d.dueDate}`] : []),
    ...(d.paymentUrl ? [`Pay online: ${d.paymentUrl}`] : []),
    '',
    `The ${title.toLowerCase()} is attached as a PDF.`,
  ].join('\n');
  return { subject, text };
}
