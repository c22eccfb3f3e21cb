import type { billing } from '@paymesh/proto';
import type { BillingDeps } from '../app/deps';
import { creditNoteView, loadCreditNote } from '../app/invoice-view';
import { listCreditNotes } from '../app/list-invoices';
import { billingEdge, idOf, orgKeyOf } from './json';

/** gRPC handlers of the credit note RPCs. */
export function creditNotesHandlers(
  deps: BillingDeps,
): Pick<billing.BillingServiceServer, 'listCreditNotes' | 'getCreditNote'> {
  const rpc = billingEdge(deps.logger);
  return {
    listCreditNotes: rpc.json('listCreditNotes', async (query, req) => listCreditNotes(deps, orgKeyOf(req), query)),
    getCreditNote: rpc.json('getCreditNote', async (_body, req) => {
      const key = orgKeyOf(req);
      return creditNoteView(deps.secrets, key, await loadCreditNote(deps, key, idOf(req)));
    }),
  };
}
