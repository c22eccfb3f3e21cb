/**
 * English texts billing writes: the e-mail of an invoice or credit note and the remarks printed on
 * void invoices and credit notes (ICU MessageFormat; `{name}` inserts a value already formatted for
 * the language). Every key here exists in every other language's file (checked by messages.test.ts).
 */
export const en = {
  'email.subject.invoice': 'Invoice {number} from {seller}',
  'email.subject.credit_note': 'Credit note {number} from {seller}',
  'email.greeting': 'Hello {buyer},',
  'email.intro.invoice': 'please find attached invoice {number} of {date}.',
  'email.intro.credit_note': 'please find attached credit note {number} of {date}. It corrects invoice {invoice}.',
  'email.amount.invoice': 'Amount due',
  'email.amount.credit_note': 'Amount credited',
  'email.issueDate': 'Date',
  'email.dueDate': 'Due date',
  'email.payOnline': 'Pay online',
  'email.attached.invoice': 'The invoice is attached as a PDF.',
  'email.attached.credit_note': 'The credit note is attached as a PDF.',
  'email.einvoice.xrechnung': 'The XRechnung e-invoice (XML) is attached as well.',
  'email.einvoice.zugferd': 'The PDF is a ZUGFeRD e-invoice: its machine-readable XML is embedded in it.',
  'email.closing': 'Kind regards',
  'remark.void': 'This invoice was voided on {date}{reason}; its credit note reverses it. Nothing is due.',
  'remark.credit.void': 'Full reversal of the voided invoice.',
  'remark.credit.refund': 'Refunded payment.',
  'remark.credit.chargeback': 'Payment reversed after a dispute.',
} as const satisfies Record<string, string>;

export type BillingMessageKey = keyof typeof en;
