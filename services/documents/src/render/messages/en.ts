/**
 * English texts of the printed documents (ICU MessageFormat: `{name}` inserts a value that is
 * already formatted for the language; `plural` picks the form). Every key here exists in every
 * other language's file (checked by messages.test.ts).
 */
export const en = {
  'title.invoice': 'Invoice',
  'title.credit_note': 'Credit note',
  'title.proforma': 'Pro forma invoice',
  'title.reminder': 'Payment reminder',
  'number.invoice': 'Invoice number',
  'number.credit_note': 'Credit note number',
  'number.proforma': 'Pro forma',
  'number.reminder': 'Invoice number',
  'total.invoice': 'Total due',
  'total.credit_note': 'Total credited',
  'total.proforma': 'Total',
  'total.reminder': 'Invoice total',
  'party.from': 'From',
  'party.to': 'To',
  'party.vatId': 'VAT ID: {vatId}',
  'meta.date': 'Date',
  'meta.dueDate': 'Due date',
  'meta.servicePeriod': 'Service period',
  'meta.supplyDate': 'Date of supply',
  'meta.creditsInvoice': 'Credits invoice',
  'supply.period': '{start} – {end}',
  'supply.invoice_date': '{date} (date of supply = invoice date)',
  'supply.invoice_month': '{month} (service period = month of the invoice date)',
  'column.description': 'Description',
  'column.quantity': 'Qty',
  'column.unitPrice': 'Unit price',
  'column.vat': 'VAT',
  'column.net': 'Net',
  'column.gross': 'Gross',
  'totals.net': 'Net total',
  'totals.vat': 'VAT {rate} on {base}',
  'terms.withinBy': 'Payable within {days, plural, one {# day} other {# days}}, by {due}.',
  'terms.by': 'Payable by {due}.',
  'terms.within': 'Payable within {days, plural, one {# day} other {# days}} of the invoice date.',
  'terms.onReceipt': 'Payable on receipt, without deduction.',
  'pay.bankTransfer': 'Bank transfer to IBAN {iban}, reference {number}.',
  'pay.online': 'Pay online: {url}',
  'body.proforma': 'This pro forma invoice is not a tax invoice and cannot be used to deduct VAT.',
  'body.credit_note': 'The amounts above are credited against invoice {invoice}.',
  'reminder.outstanding': 'Outstanding: {amount}',
  'reminder.dueSince': ', due since {due}',
  'reminder.daysOverdue': ' ({days, plural, one {# day} other {# days}})',
  'reminder.text':
    'Our records show that invoice {number} has not been paid in full. If you have paid it in the meantime, please disregard this reminder.',
  'note.reverse_charge':
    'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).',
  'note.intra_community_supply':
    'VAT-exempt intra-Community supply of goods (Article 138 of Council Directive 2006/112/EC).',
  'note.export': 'VAT-exempt export outside the EU (Article 146 of Council Directive 2006/112/EC).',
} as const satisfies Record<string, string>;

export type MessageKey = keyof typeof en;
