import type { EmailEInvoiceFormat } from '@paymesh/contracts';
import type { ClientEInvoiceFormat } from './client';
import type { InvoicingSettings } from './invoicing-settings';

/**
 * Which e-invoice travels with a document e-mail (pure):
 * - the client's own choice when it made one (`none` attaches nothing; a format is attached and the
 *   organization's e-invoice settings are enforced for it, so a disabled or disallowed format refuses
 *   the send rather than leaving out what the buyer asked for);
 * - otherwise the organization's `eInvoice.emailFormat`, for business clients (a tax ID on the
 *   document), while e-invoices are enabled and the format is allowed;
 * - otherwise none.
 */
export function emailEInvoiceFormat(
  settings: Pick<InvoicingSettings, 'eInvoice'>,
  client: { eInvoiceFormat: ClientEInvoiceFormat | null; business: boolean },
): { format: EmailEInvoiceFormat; enforce: boolean } | null {
  if (client.eInvoiceFormat === 'none') return null;
  if (client.eInvoiceFormat) return { format: client.eInvoiceFormat, enforce: true };
  const e = settings.eInvoice;
  const format = e.emailFormat ?? null;
  if (!format || !client.business || !e.enabled || !e.allowedFormats.includes(format)) return null;
  return { format, enforce: false };
}
