import { call, makeClient } from '@paymesh/grpc';
import { documents } from '@paymesh/proto';
import { einvoiceReport } from '@paymesh/contracts';
import type { DocumentsPort } from '../app/documents-port';

/** {@link DocumentsPort} over the documents service's gRPC API. */
export function grpcDocumentsPort(address: string, deadlineMs: number): DocumentsPort & { close(): void } {
  const client = makeClient(documents.DocumentsServiceClient, address);
  return {
    async renderPdf(key, req) {
      const res = await call(
        client,
        client.renderInvoicePdf,
        {
          organizationId: key.organizationId,
          testMode: key.mode === 'test',
          documentId: req.documentId,
          snapshotVersion: req.snapshotVersion,
          regenerate: req.regenerate,
          ephemeral: req.ephemeral ?? false,
          bodyJson: JSON.stringify(req.view),
        },
        { deadlineMs, target: 'documents' },
      );
      return { pdf: Buffer.from(res.pdf), rendered: res.rendered };
    },
    async renderEInvoice(key, body) {
      const res = await call(
        client,
        client.renderEInvoice,
        { organizationId: key.organizationId, testMode: key.mode === 'test', bodyJson: JSON.stringify(body) },
        { deadlineMs, target: 'documents' },
      );
      return {
        content: Buffer.from(res.content),
        contentType: res.contentType,
        report: einvoiceReport.parse(JSON.parse(res.reportJson)),
      };
    },
    close() {
      client.close();
    },
  };
}
