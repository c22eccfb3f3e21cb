import { documents } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { documentView, renderEInvoiceBody } from '@paymesh/contracts';
import { decodeJson, type Logger, modeOf } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import { storedPdf } from '../app/stored-pdf';
import { renderEInvoice } from '../app/render-einvoice';
import type { PdfRenderer } from '../render/pdf-renderer';

const SERVICE_VERSION = '0.1.0';

export function registerDocumentsService(
  grpc: GrpcServer,
  logger: Logger,
  store: DocumentStore,
  renderer: PdfRenderer,
): void {
  const impl: documents.DocumentsServiceServer = {
    describe: unary(logger, 'documents/Describe', async () => ({ service: 'documents', version: SERVICE_VERSION })),
    renderInvoicePdf: unary(logger, 'documents/RenderInvoicePdf', async (req: documents.RenderPdfRequest) =>
      storedPdf(store, renderer, {
        organizationId: req.organizationId,
        mode: modeOf(req.testMode),
        documentId: req.documentId,
        snapshotVersion: req.snapshotVersion,
        regenerate: req.regenerate,
        ephemeral: req.ephemeral,
        view: decodeJson(documentView, req.bodyJson),
      }),
    ),
    renderEInvoice: unary(logger, 'documents/RenderEInvoice', async (req: documents.RenderEInvoiceRequest) => {
      const out = await renderEInvoice(renderer, decodeJson(renderEInvoiceBody, req.bodyJson), new Date());
      return { content: out.content, contentType: out.contentType, reportJson: JSON.stringify(out.report) };
    }),
  };
  grpc.addService(documents.DocumentsServiceService, impl);
}
