import type { BillingMessageKey } from './en';

/** German texts billing writes (same keys and placeholders as en.ts). */
export const de: Record<BillingMessageKey, string> = {
  'email.subject.invoice': 'Rechnung {number} von {seller}',
  'email.subject.credit_note': 'Rechnungskorrektur {number} von {seller}',
  'email.greeting': 'Guten Tag {buyer},',
  'email.intro.invoice': 'anbei erhalten Sie die Rechnung {number} vom {date}.',
  'email.intro.credit_note':
    'anbei erhalten Sie die Rechnungskorrektur {number} vom {date}. Sie korrigiert die Rechnung {invoice}.',
  'email.amount.invoice': 'Zu zahlender Betrag',
  'email.amount.credit_note': 'Gutgeschriebener Betrag',
  'email.issueDate': 'Datum',
  'email.dueDate': 'Fällig am',
  'email.payOnline': 'Online bezahlen',
  'email.attached.invoice': 'Die Rechnung ist als PDF angehängt.',
  'email.attached.credit_note': 'Die Rechnungskorrektur ist als PDF angehängt.',
  'email.einvoice.xrechnung': 'Die E-Rechnung im Format XRechnung (XML) ist ebenfalls angehängt.',
  'email.einvoice.zugferd':
    'Das PDF ist eine ZUGFeRD-E-Rechnung: Die maschinenlesbaren XML-Daten sind darin eingebettet.',
  'email.closing': 'Mit freundlichen Grüßen',
  'remark.void':
    'Diese Rechnung wurde am {date} storniert{reason}; die zugehörige Rechnungskorrektur hebt sie auf. Es ist nichts zu zahlen.',
  'remark.credit.void': 'Vollständige Stornierung der Rechnung.',
  'remark.credit.refund': 'Erstattete Zahlung.',
  'remark.credit.chargeback': 'Nach einer Zahlungsrückbuchung (Chargeback) zurückgebuchte Zahlung.',
};
