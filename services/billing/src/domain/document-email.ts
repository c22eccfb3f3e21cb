import Handlebars from 'handlebars';

/**
 * The e-mail of an issued invoice or credit note (pure): subject, plain-text body and the document
 * attached as a self-contained HTML rendition of its legal snapshot. The HTML stands in until the
 * documents service renders PDFs; then the PDF is attached instead (see docs/decisions.md "E-mail").
 */

export interface EmailLine {
  description: string;
  quantity: number;
  /** Minor units. */
  unitPrice: number;
}

export interface DocumentForEmail {
  kind: 'invoice' | 'credit_note';
  number: string;
  issueDate: string;
  dueDate: string | null;
  currency: string;
  sellerName: string;
  buyerName: string;
  lines: EmailLine[];
  totals: { net: number; tax: number; gross: number };
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
  attachment: { filename: string; contentType: string; content: Buffer };
}

/** `1250, 'EUR'` -> `12.50 EUR`, with the currency's own number of decimals (ISO 4217 via Intl). */
export function formatMoney(minor: number, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const unit = 10 ** digits;
  const whole = Math.floor(abs / unit);
  const frac = digits > 0 ? `.${String(abs % unit).padStart(digits, '0')}` : '';
  return `${sign}${whole}${frac} ${currency}`;
}

const TITLES = { invoice: 'Invoice', credit_note: 'Credit note' } as const;

const renderHtml = Handlebars.compile<Record<string, unknown>>(
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{title}} {{number}}</title>
<style>body{font-family:sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;width:100%}th,td{padding:.3rem;border-bottom:1px solid #ddd;text-align:left}td.n,th.n{text-align:right}</style>
</head><body>
<h1>{{title}} {{number}}</h1>
<p><strong>From:</strong> {{sellerName}}<br><strong>To:</strong> {{buyerName}}</p>
<p><strong>Issue date:</strong> {{issueDate}}{{#if dueDate}}<br><strong>Due date:</strong> {{dueDate}}{{/if}}{{#if invoiceNumber}}<br><strong>Corrects invoice:</strong> {{invoiceNumber}}{{/if}}</p>
<table><thead><tr><th>Description</th><th class="n">Quantity</th><th class="n">Unit price</th></tr></thead><tbody>
{{#each lines}}<tr><td>{{description}}</td><td class="n">{{quantity}}</td><td class="n">{{unitPrice}}</td></tr>{{/each}}
</tbody></table>
<p class="n"><strong>Net:</strong> {{net}}<br><strong>Tax:</strong> {{tax}}<br><strong>Total:</strong> {{gross}}<br><strong>{{dueLabel}}:</strong> {{amountDue}}</p>
{{#if paymentUrl}}<p><a href="{{paymentUrl}}">Pay online</a></p>{{/if}}
</body></html>
`,
  { strict: false },
);

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
    `The ${title.toLowerCase()} is attached.`,
  ].join('\n');
  const html = renderHtml({
    title,
    number: d.number,
    sellerName: d.sellerName,
    buyerName: d.buyerName,
    issueDate: d.issueDate,
    dueDate: d.dueDate,
    invoiceNumber: d.invoiceNumber,
    lines: d.lines.map((l) => ({ description: l.description, quantity: l.quantity, unitPrice: money(l.unitPrice) })),
    net: money(d.totals.net),
    tax: money(d.totals.tax),
    gross: money(d.totals.gross),
    dueLabel,
    amountDue: money(d.amountDue),
    paymentUrl: d.paymentUrl,
  });
  const prefix = d.kind === 'invoice' ? 'invoice' : 'credit-note';
  return {
    subject,
    text,
    attachment: { filename: `${prefix}-${d.number.replace(/[^A-Za-z0-9._-]/g, '_')}.html`, contentType: 'text/html', content: Buffer.from(html, 'utf8') },
  };
}
