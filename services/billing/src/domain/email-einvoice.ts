import type { EmailEInvoiceFormat } from '@paymesh/contracts';
import type { ClientEInvoiceFormat } from './client';
import type { InvoicingSettings } from './invoicing-settings';

/**
 * Which e-invoice travels with a document e-mail (pure); none while the organization has e-invoices
 * disabled (`eInvoice.enabled`), else:
 * - the client's own choice when it made one (`none` attaches nothing; a format is attached and the
 *   organization's allowed formats are enforced for it, so a disallowed format refuses the send
 *   rather than leaving out what the buyer asked for);
 * - otherwise the organization's `eInvoice.emailFormat`, for business clients (a tax ID on the
 *   document), while the format is allowed;
 * - otherwise none.
 */
export function emailEInvoiceFormat(
  settings: Pick<InvoicingSettings, 'eInvoice'>,
  client: { eInvoiceFormat: ClientEInvoiceFormat | null; business: boolean },
): { format: EmailEInvoiceFormat; enforce: boolean } | null {
  const e = settings.eInvoice;
  if (!e.enabled || client.eInvoiceFormat === 'none') return null;
  if (client.eInvoiceFormat) return { format: client.eInvoiceFormat, enforce: true };
  const format = e.emailFormat ?? null;
  if (!format || !client.business || !e.allowedFormats.includes(format)) return null;
  return { format, enforce: false };
}
