import { documents } from '@paymesh/proto';
import { parseJsonBody, unary, type GrpcServer } from '@paymesh/grpc';
import { documentView } from '@paymesh/contracts';
import type { Logger } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import { storedPdf } from '../app/stored-pdf';
import type { PdfRenderer } from '../render/pdf-renderer';

const SERVICE_VERSION = '0.1.0';

export function registerDocumentsService(grpc: GrpcServer, logger: Logger, store: DocumentStore, renderer: PdfRenderer): void {
  const impl: documents.DocumentsServiceServer = {
    describe: unary(logger, 'documents/Describe', async () => ({ service: 'documents', version: SERVICE_VERSION })),
    renderInvoicePdf: unary(logger, 'documents/RenderInvoicePdf', async (req: documents.RenderPdfRequest) =>
      storedPdf(store, renderer, {
        organizationId: req.organizationId,
        mode: req.testMode ? 'test' : 'live',
        documentId: req.documentId,
        snapshotVersion: req.snapshotVersion,
        regenerate: req.regenerate,
        view: parseJsonBody(req.bodyJson, documentView),
      }),
    ),
  };
  grpc.addService(documents.DocumentsServiceService, impl);
}
