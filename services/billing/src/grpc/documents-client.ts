import { toWire } from '@paymesh/core';
import { documents } from '@paymesh/proto';
import { einvoiceReport } from '@paymesh/contracts';
import type { DocumentsPort } from '../app/documents-port';
import { remote } from './remote';

/** {@link DocumentsPort} over the documents service's gRPC API. */
export function grpcDocumentsPort(address: string, deadlineMs: number): DocumentsPort & { close(): void } {
  const docs = remote(documents.DocumentsServiceClient, address, deadlineMs, 'documents');
  return {
    async renderPdf(key, req) {
      const res = await docs.call(docs.client.renderInvoicePdf, {
        ...toWire(key),
        documentId: req.documentId,
        snapshotVersion: req.snapshotVersion,
        regenerate: req.regenerate,
        ephemeral: req.ephemeral ?? false,
        bodyJson: JSON.stringify(req.view),
      });
      return { pdf: Buffer.from(res.pdf), rendered: res.rendered };
    },
    async renderEInvoice(key, body) {
      const res = await docs.call(docs.client.renderEInvoice, { ...toWire(key), bodyJson: JSON.stringify(body) });
      return {
        content: Buffer.from(res.content),
        contentType: res.contentType,
        report: einvoiceReport.parse(JSON.parse(res.reportJson)),
      };
    },
    close: docs.close,
  };
}
