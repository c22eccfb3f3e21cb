import type { ProformaPreviewBody } from '@paymesh/contracts';
import { pdfFileNameOf } from '../domain/invoice';
import type { OrgKey } from './deps';
import { proformaView } from './document-view';
import { buyerOf, draftFields } from './draft-invoice';
import type { InvoiceDeps } from './invoice-deps';
import { getInvoicingSettings } from './invoicing-settings';
import type { DocumentPdf } from './document-pdf';

/**
 * The pro forma PDF of an invoice payload, through the same tax preview and pro forma layout as a
 * draft's, with nothing stored: no invoice, no number, no stored PDF (the documents service renders
 * it without keeping it). The recurring service's preview of a subscription's next charge.
 */
export async function proformaPreviewPdf(
  deps: InvoiceDeps,
  key: OrgKey,
  body: ProformaPreviewBody,
): Promise<DocumentPdf> {
  const fields = await draftFields(deps, key, body.invoice);
  const [settings, sellerTax, buyer, site] = await Promise.all([
    getInvoicingSettings(deps, key),
    deps.tax.settings(key),
    buyerOf(deps, key, fields.clientId),
    deps.checkout.siteBranding(key, fields.siteId),
  ]);
  const { view } = proformaView(
    deps.secrets,
    key,
    { ...fields, id: body.sourceId, version: 0 },
    {
      settings: settings.settings,
      sellerVatId: sellerTax.vatId,
      buyer,
      now: deps.clock.now(),
      site,
    },
  );
  const printed = { ...view, number: body.number };
  const { pdf } = await deps.documents.renderPdf(key, {
    documentId: body.sourceId,
    snapshotVersion: 'preview',
    regenerate: false,
    ephemeral: true,
    view: printed,
  });
  deps.logger.info({ sourceId: body.sourceId, number: body.number, bytes: pdf.length }, 'pro forma preview rendered');
  return { pdf, filename: pdfFileNameOf(body.number), rendered: true };
}
