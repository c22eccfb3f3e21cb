import Handlebars from 'handlebars';
import type { DocumentLanguage, EmailEInvoiceFormat } from '@paymesh/contracts';
import { textsOf } from './messages';

/**
 * The e-mail of an issued invoice or credit note (pure): subject, plain-text body and the same
 * content as HTML, in the document's language. The document itself travels as its PDF
 * (`<number>.pdf`, or the ZUGFeRD PDF), with the XRechnung XML beside it when the client gets one
 * (see app/send-document-email.ts).
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
  /** Language of the texts, amounts and dates (absent: English). */
  language?: DocumentLanguage;
  /** The e-invoice that travels with the e-mail, named in its text. */
  einvoice?: EmailEInvoiceFormat | null;
}

export interface ComposedEmail {
  subject: string;
  text: string;
  html: string;
}

const HTML = Handlebars.compile(
  `<!doctype html>
<html lang="{{language}}"><head><meta charset="utf-8"><title>{{subject}}</title></head>
<body style="font-family: Arial, Helvetica, sans-serif; font-size: 14px; color: #1a1a1a; line-height: 1.5;">
{{#if message}}<p style="white-space: pre-line;">{{message}}</p>{{/if}}
<p>{{greeting}}</p>
<p>{{intro}}</p>
<table style="border-collapse: collapse; margin: 12px 0;"><tbody>
{{#each facts}}<tr><td style="padding: 2px 16px 2px 0; color: #555;">{{label}}</td><td style="padding: 2px 0;"><strong>{{value}}</strong></td></tr>{{/each}}
</tbody></table>
{{#if paymentUrl}}<p><a href="{{paymentUrl}}" style="display: inline-block; padding: 8px 16px; background: #1a1a1a; color: #ffffff; text-decoration: none; border-radius: 4px;">{{payOnline}}</a></p>{{/if}}
{{#each notes}}<p>{{this}}</p>{{/each}}
<p>{{closing}}<br>{{sellerName}}</p>
</body></html>`,
  { strict: false },
);

export function composeDocumentEmail(d: DocumentForEmail): ComposedEmail {
  const t = textsOf(d.language);
  const subject = t.t(`email.subject.${d.kind}`, { number: d.number, seller: d.sellerName });
  const greeting = t.t('email.greeting', { buyer: d.buyerName });
  const intro = t.t(`email.intro.${d.kind}`, {
    number: d.number,
    date: t.date(d.issueDate),
    invoice: d.invoiceNumber ?? '',
  });
  const facts = [
    { label: t.t(`email.amount.${d.kind}`), value: t.money(d.amountDue, d.currency) },
    { label: t.t('email.issueDate'), value: t.date(d.issueDate) },
    ...(d.dueDate ? [{ label: t.t('email.dueDate'), value: t.date(d.dueDate) }] : []),
  ];
  const notes = [t.t(`email.attached.${d.kind}`), ...(d.einvoice ? [t.t(`email.einvoice.${d.einvoice}`)] : [])];
  const closing = t.t('email.closing');
  const text = [
    ...(d.message ? [d.message, ''] : []),
    greeting,
    '',
    intro,
    '',
    ...facts.map((f) => `${f.label}: ${f.value}`),
    ...(d.paymentUrl ? [`${t.t('email.payOnline')}: ${d.paymentUrl}`] : []),
    '',
    ...notes,
    '',
    closing,
    d.sellerName,
  ].join('\n');
  const html = HTML({
    language: t.language,
    subject,
    message: d.message,
    greeting,
    intro,
    facts,
    paymentUrl: d.paymentUrl,
    payOnline: t.t('email.payOnline'),
    notes,
    closing,
    sellerName: d.sellerName,
  });
  return { subject, text, html };
}
