import Handlebars from 'handlebars';
import type { DocumentKind, DocumentView } from '@paymesh/contracts';
import { formatIban, formatMoney, formatPercent, paymentTermsOf, taxNotesOf, titleOf } from '../domain/format';

/**
 * Handlebars templates of the four documents (invoice, credit note, pro forma, payment reminder): one A4 layout (partial `layout`) and a template per
 * kind for what differs. Everything is inline (no external assets); the text font is the system's
 * DejaVu Sans (Debian fonts-dejavu-core), which Chromium embeds, subsetted, in the PDF.
 */

const STYLE = `
@page { size: A4; margin: 18mm 16mm 20mm 16mm; }
* { box-sizing: border-box; }
body { font-family: 'DejaVu Sans', sans-serif; font-size: 9.5pt; color: #1a1a1a; margin: 0; }
h1 { font-size: 18pt; margin: 0 0 2mm 0; color: var(--accent); }
.brand { font-size: 11pt; font-weight: bold; color: var(--accent); border-bottom: 2px solid var(--accent); padding-bottom: 2mm; margin-bottom: 4mm; }
.parties { display: flex; justify-content: space-between; margin: 6mm 0; }
.party { width: 48%; }
.party .label, .meta .label { color: #666; font-size: 8pt; text-transform: uppercase; letter-spacing: .04em; }
.meta { margin-bottom: 6mm; }
.meta td { padding: 0 6mm 1mm 0; }
table.lines { width: 100%; border-collapse: collapse; }
table.lines th { text-align: left; border-bottom: 1px solid var(--accent); padding: 1.5mm 1mm; font-size: 8.5pt; }
table.lines td { border-bottom: 1px solid #e2e2e2; padding: 1.5mm 1mm; vertical-align: top; }
table.lines tr { page-break-inside: avoid; }
.num, table.lines th.num { text-align: right; white-space: nowrap; }
.totals { margin-top: 4mm; margin-left: auto; width: 45%; border-collapse: collapse; }
.totals td { padding: 1mm; }
.totals .grand td { font-weight: bold; border-top: 1px solid #999; }
.notes { margin-top: 6mm; }
.notes p { margin: 0 0 2mm 0; }
.remarks { white-space: pre-line; }
`;

const LAYOUT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{title}} {{v.number}}</title><style>${STYLE}</style></head>
<body style="--accent: {{accent}}">
{{#if v.branding.name}}<div class="brand">{{v.branding.name}}</div>{{/if}}
<h1>{{title}}</h1>
<div class="parties">
  <div class="party"><div class="label">From</div>{{> party v.seller}}</div>
  <div class="party"><div class="label">To</div>{{> party v.buyer}}</div>
</div>
<table class="meta"><tbody>
  <tr><td class="label">{{numberLabel}}</td><td>{{v.number}}</td></tr>
  {{#if v.issueDate}}<tr><td class="label">Date</td><td>{{v.issueDate}}</td></tr>{{/if}}
  {{#if v.dueDate}}<tr><td class="label">Due date</td><td>{{v.dueDate}}</td></tr>{{/if}}
  {{#if v.servicePeriod}}<tr><td class="label">Service period</td><td>{{v.servicePeriod.start}} – {{v.servicePeriod.end}}</td></tr>{{/if}}
  {{#if v.invoiceNumber}}<tr><td class="label">Credits invoice</td><td>{{v.invoiceNumber}}</td></tr>{{/if}}
</tbody></table>
<table class="lines">
  <thead><tr><th>Description</th><th class="num">Qty</th><th class="num">Unit price</th><th class="num">VAT</th><th class="num">Net</th><th class="num">Gross</th></tr></thead>
  <tbody>{{#each v.lines}}<tr><td>{{description}}</td><td class="num">{{quantity}}</td><td class="num">{{money unitPrice}}</td><td class="num">{{percent taxRate}}</td><td class="num">{{money net}}</td><td class="num">{{money gross}}</td></tr>{{/each}}</tbody>
</table>
<table class="totals"><tbody>
  <tr><td>Net total</td><td class="num">{{money v.totals.net}}</td></tr>
  {{#each v.taxBreakdown}}<tr><td>VAT {{percent taxRate}} on {{money taxableBase}}</td><td class="num">{{money taxAmount}}</td></tr>{{/each}}
  <tr class="grand"><td>{{totalLabel}}</td><td class="num">{{money v.totals.gross}}</td></tr>
</tbody></table>
<div class="notes">
  {{#each taxNotes}}<p>{{this}}</p>{{/each}}
  {{> body}}
  {{#if v.remarks}}<p class="remarks">{{v.remarks}}</p>{{/if}}
</div>
</body></html>`;

const PARTY = `<div><strong>{{name}}</strong></div>
{{#if address}}<div>{{address.street}}</div><div>{{address.postalCode}} {{address.city}}</div><div>{{address.country}}</div>{{/if}}
{{#if vatId}}<div>VAT ID: {{vatId}}</div>{{/if}}
{{#if email}}<div>{{email}}</div>{{/if}}`;

const BODIES: Record<DocumentKind, string> = {
  invoice: `{{#if paymentTerms}}<p>{{paymentTerms}}</p>{{/if}}{{#if v.seller.iban}}<p>Bank transfer to IBAN {{iban v.seller.iban}}, reference {{v.number}}.</p>{{/if}}`,
  proforma: `<p>This pro forma invoice is not a tax invoice and cannot be used to deduct VAT.</p>{{#if paymentTerms}}<p>{{paymentTerms}}</p>{{/if}}`,
  credit_note: `<p>The amounts above are credited against invoice {{v.invoiceNumber}}.</p>`,
  reminder: `{{#if v.reminder}}<p class="due"><strong>Outstanding: {{money v.reminder.amountDue}}</strong>{{#if v.dueDate}}, due since {{v.dueDate}}{{#if v.reminder.daysOverdue}} ({{v.reminder.daysOverdue}} days){{/if}}{{/if}}.</p>{{/if}}<p>Our records show that invoice {{v.number}} has not been paid in full. If you have paid it in the meantime, please disregard this reminder.</p>{{#if v.seller.iban}}<p>Bank transfer to IBAN {{iban v.seller.iban}}, reference {{v.number}}.</p>{{/if}}{{#if v.reminder.paymentUrl}}<p>Pay online: {{v.reminder.paymentUrl}}</p>{{/if}}`,
};

const LABELS: Record<DocumentKind, { numberLabel: string; totalLabel: string }> = {
  invoice: { numberLabel: 'Invoice number', totalLabel: 'Total due' },
  proforma: { numberLabel: 'Pro forma', totalLabel: 'Total' },
  credit_note: { numberLabel: 'Credit note number', totalLabel: 'Total credited' },
  reminder: { numberLabel: 'Invoice number', totalLabel: 'Invoice total' },
};

/** Rules and headings when the site has no primary colour. */
const DEFAULT_ACCENT = '#333333';

type Renderer = (view: DocumentView) => string;

function compile(kind: DocumentKind): Renderer {
  const hb = Handlebars.create();
  hb.registerPartial('party', PARTY);
  hb.registerPartial('body', BODIES[kind]);
  hb.registerHelper('money', (minor: number, options: Handlebars.HelperOptions) =>
    formatMoney(minor, (options.data as { root: { v: DocumentView } }).root.v.currency),
  );
  hb.registerHelper('percent', (rate: number) => formatPercent(rate));
  hb.registerHelper('iban', (iban: string) => formatIban(iban));
  const template = hb.compile(LAYOUT);
  return (v) => {
    return template({
      v,
      accent: v.branding?.primaryColor ?? DEFAULT_ACCENT,
      title: titleOf(kind),
      ...LABELS[kind],
      taxNotes: taxNotesOf(v.lines),
      paymentTerms: paymentTermsOf(v),
    });
  };
}

const compiled = new Map<DocumentKind, Renderer>();

/** The document's HTML; every value is escaped by Handlebars. */
export function renderHtml(view: DocumentView): string {
  let render = compiled.get(view.kind);
  if (!render) {
    render = compile(view.kind);
    compiled.set(view.kind, render);
  }
  return render(view);
}
