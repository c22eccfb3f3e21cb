import Handlebars from 'handlebars';
import type { DocumentKind, DocumentView } from '@paymesh/contracts';
import { formatIban, printerOf, type Printer } from '../domain/format';
import type { MessageKey } from './messages/en';

/**
 * Handlebars templates of the four documents (invoice, credit note, pro forma, payment reminder): one A4 layout (partial `layout`) and a template per
 * kind for what differs. Texts come from the message file of the view's language (render/messages), amounts
 * and dates are formatted for it. Everything is inline (no external assets); the text font is the system's
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
<html lang="{{p.language}}"><head><meta charset="utf-8"><title>{{title}} {{v.number}}</title><style>${STYLE}</style></head>
<body style="--accent: {{accent}}">
{{#if v.branding.name}}<div class="brand">{{v.branding.name}}</div>{{/if}}
<h1>{{title}}</h1>
<div class="parties">
  <div class="party"><div class="label">{{t "party.from"}}</div>{{> party v.seller}}</div>
  <div class="party"><div class="label">{{t "party.to"}}</div>{{> party v.buyer}}</div>
</div>
<table class="meta"><tbody>
  <tr><td class="label">{{numberLabel}}</td><td>{{v.number}}</td></tr>
  {{#if v.issueDate}}<tr><td class="label">{{t "meta.date"}}</td><td>{{date v.issueDate}}</td></tr>{{/if}}
  {{#if v.dueDate}}<tr><td class="label">{{t "meta.dueDate"}}</td><td>{{date v.dueDate}}</td></tr>{{/if}}
  {{#if supply}}<tr><td class="label">{{supply.label}}</td><td>{{supply.value}}</td></tr>{{/if}}
  {{#if v.invoiceNumber}}<tr><td class="label">{{t "meta.creditsInvoice"}}</td><td>{{v.invoiceNumber}}</td></tr>{{/if}}
</tbody></table>
<table class="lines">
  <thead><tr><th>{{t "column.description"}}</th><th class="num">{{t "column.quantity"}}</th><th class="num">{{t "column.unitPrice"}}</th><th class="num">{{t "column.vat"}}</th><th class="num">{{t "column.net"}}</th><th class="num">{{t "column.gross"}}</th></tr></thead>
  <tbody>{{#each v.lines}}<tr><td>{{description}}</td><td class="num">{{quantity}}</td><td class="num">{{money unitPrice}}</td><td class="num">{{percent taxRate}}</td><td class="num">{{money net}}</td><td class="num">{{money gross}}</td></tr>{{/each}}</tbody>
</table>
<table class="totals"><tbody>
  <tr><td>{{t "totals.net"}}</td><td class="num">{{money v.totals.net}}</td></tr>
  {{#each v.taxBreakdown}}<tr><td>{{t "totals.vat" rate=(percent taxRate) base=(money taxableBase)}}</td><td class="num">{{money taxAmount}}</td></tr>{{/each}}
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
{{#if vatId}}<div>{{t "party.vatId" vatId=vatId}}</div>{{/if}}
{{#if email}}<div>{{email}}</div>{{/if}}`;

const BANK = `{{#if v.seller.iban}}<p>{{t "pay.bankTransfer" iban=(iban v.seller.iban) number=v.number}}</p>{{/if}}`;

const BODIES: Record<DocumentKind, string> = {
  invoice: `{{#if paymentTerms}}<p>{{paymentTerms}}</p>{{/if}}${BANK}`,
  proforma: `<p>{{t "body.proforma"}}</p>{{#if paymentTerms}}<p>{{paymentTerms}}</p>{{/if}}`,
  credit_note: `<p>{{t "body.credit_note" invoice=v.invoiceNumber}}</p>`,
  reminder: `{{#if v.reminder}}<p class="due"><strong>{{t "reminder.outstanding" amount=(money v.reminder.amountDue)}}</strong>{{#if v.dueDate}}{{t "reminder.dueSince" due=(date v.dueDate)}}{{#if v.reminder.daysOverdue}}{{t "reminder.daysOverdue" days=v.reminder.daysOverdue}}{{/if}}{{/if}}.</p>{{/if}}<p>{{t "reminder.text" number=v.number}}</p>${BANK}{{#if v.reminder.paymentUrl}}<p>{{t "pay.online" url=v.reminder.paymentUrl}}</p>{{/if}}`,
};

/** Rules and headings when the site has no primary colour. */
const DEFAULT_ACCENT = '#333333';

type Renderer = (view: DocumentView) => string;

type Root = { v: DocumentView; p: Printer };
const rootOf = (options: Handlebars.HelperOptions) => (options.data as { root: Root }).root;

function compile(kind: DocumentKind): Renderer {
  const hb = Handlebars.create();
  hb.registerPartial('party', PARTY);
  hb.registerPartial('body', BODIES[kind]);
  hb.registerHelper('t', (key: MessageKey, options: Handlebars.HelperOptions) =>
    rootOf(options).p.t(key, options.hash as Record<string, string | number>),
  );
  hb.registerHelper('money', (minor: number, options: Handlebars.HelperOptions) => {
    const { v, p } = rootOf(options);
    return p.money(minor, v.currency);
  });
  hb.registerHelper('percent', (rate: number, options: Handlebars.HelperOptions) => rootOf(options).p.percent(rate));
  hb.registerHelper('date', (day: string, options: Handlebars.HelperOptions) => rootOf(options).p.date(day));
  hb.registerHelper('iban', (iban: string) => formatIban(iban));
  const template = hb.compile(LAYOUT);
  return (v) => {
    const p = printerOf(v.language);
    return template({
      v,
      p,
      accent: v.branding?.primaryColor ?? DEFAULT_ACCENT,
      title: p.title(kind),
      numberLabel: p.t(`number.${kind}`),
      totalLabel: p.t(`total.${kind}`),
      supply: p.supply(v),
      taxNotes: p.taxNotes(v.lines),
      paymentTerms: p.paymentTerms(v),
    });
  };
}

const compiled = new Map<DocumentKind, Renderer>();

/** The document's HTML in the view's language; every value is escaped by Handlebars. */
export function renderHtml(view: DocumentView): string {
  let render = compiled.get(view.kind);
  if (!render) {
    render = compile(view.kind);
    compiled.set(view.kind, render);
  }
  return render(view);
}
