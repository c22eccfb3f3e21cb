import type { billing } from '@paymesh/proto';
import { integrityExport, verifyIntegrity } from '../app/document-chain';
import type { InvoiceDeps } from '../app/invoice-deps';
import { billingEdge, orgKeyOf } from './json';

/** gRPC handlers of the document integrity RPCs (hash chains of issued documents). */
export function integrityHandlers(
  deps: InvoiceDeps,
): Pick<billing.BillingServiceServer, 'verifyDocumentIntegrity' | 'exportDocumentIntegrity'> {
  const rpc = billingEdge(deps.logger);
  return {
    verifyDocumentIntegrity: rpc.json('verifyDocumentIntegrity', async (_body, req) =>
      verifyIntegrity(deps.store, orgKeyOf(req), deps.clock.now()),
    ),
    exportDocumentIntegrity: rpc.json('exportDocumentIntegrity', async (_body, req) =>
      integrityExport(deps.store, orgKeyOf(req), deps.clock.now()),
    ),
  };
}
