import type { DocumentView, EInvoiceDocument, EInvoiceReport, RenderEInvoiceBody } from '@paymesh/contracts';
import { breakdownByRate, ValidationError } from '@paymesh/core';
import { buildCii, FACTURX_EN16931_ID } from '../einvoice/cii';
import { checkEInvoice } from '../einvoice/check';
import { facturXPdf } from '../einvoice/facturx-pdf';
import { buildUbl, UBL_PROFILES } from '../einvoice/ubl';
import { printerOf } from '../domain/format';
import { renderHtml } from '../render/templates';
import type { PdfRenderer } from '../render/pdf-renderer';

export interface RenderedEInvoice {
  content: Buffer;
  contentType: 'application/xml' | 'application/pdf';
  report: EInvoiceReport;
}

/** The XML of a document in a format, and the specification identifier (BT-24) it states. */
export function einvoiceXml(body: Pick<RenderEInvoiceBody, 'format' | 'document'>): {
  xml: string;
  specification: string;
} {
  if (body.format === 'zugferd') return { xml: buildCii(body.document), specification: FACTURX_EN16931_ID };
  return { xml: buildUbl(body.document, body.format), specification: UBL_PROFILES[body.format].customizationId };
}

/** The printed view of an e-invoice document (the visible part of the hybrid PDF). */
export function printedView(doc: EInvoiceDocument, print: RenderEInvoiceBody['print'] = {}): DocumentView {
  const decision = { S: null, Z: null, AE: 'reverse_charge', K: 'intra_community_supply', G: 'export' } as const;
  return {
    kind: doc.kind,
    number: doc.number,
    issueDate: doc.issueDate,
    dueDate: doc.dueDate,
    servicePeriod: doc.servicePeriod,
    supplyDateRule: print.supplyDateRule ?? null,
    ...(print.language ? { language: print.language } : {}),
    currency: doc.currency,
    seller: {
      name: doc.seller.name,
      address: doc.seller.address,
      email: doc.seller.email,
      vatId: doc.seller.vatId,
      iban: doc.seller.iban,
    },
    buyer: { name: doc.buyer.name, address: doc.buyer.address, email: doc.buyer.email, vatId: doc.buyer.vatId },
    lines: doc.lines.map((l) => ({
      description: l.description,
      quantity: l.quantity,
      unitPrice: Math.round(l.net / l.quantity),
      net: l.net,
      tax: l.tax,
      gross: l.net + l.tax,
      taxRate: l.taxRate,
      decision: decision[l.category],
    })),
    taxBreakdown: breakdownByRate(
      doc.lines.map((l) => ({ taxRate: l.taxRate, taxRateCode: l.category, net: l.net, tax: l.tax })),
    ),
    totals: doc.totals,
    paymentTermsDays: null,
    invoiceNumber: doc.precedingInvoice?.number ?? null,
    // The printer states the terms in the document's language; the XML's English terms text only without one.
    remarks: [print.language ? null : doc.paymentTerms, doc.note].filter(Boolean).join('\n') || null,
  };
}

/**
 * Writes an e-invoice with an XML library, validates it (report), and for `output: pdf` renders
 * the visible invoice and attaches the CII XML (Factur-X / ZUGFeRD, zugferd only).
 */
export async function renderEInvoice(
  renderer: PdfRenderer,
  body: RenderEInvoiceBody,
  now: Date,
): Promise<RenderedEInvoice> {
  const { xml, specification } = einvoiceXml(body);
  const report = checkEInvoice(body.document, body.format, xml, specification, now);
  if (body.output === 'xml') return { content: Buffer.from(xml, 'utf8'), contentType: 'application/xml', report };
  if (body.format !== 'zugferd')
    throw new ValidationError('a PDF carries the zugferd (Factur-X CII) format only', { field: 'output' });
  const pdf = await renderer.render(renderHtml(printedView(body.document, body.print)));
  const hybrid = await facturXPdf(pdf, xml, {
    title: `${printerOf(body.print?.language).title(body.document.kind)} ${body.document.number}`,
    at: now,
  });
  return { content: hybrid, contentType: 'application/pdf', report };
}
