import type { billing } from '@paymesh/proto';
import type { BillingDeps } from '../app/deps';
import { creditNoteView, loadCreditNote } from '../app/invoice-view';
import { listCreditNotes } from '../app/list-invoices';
import { idOf, jsonUnary, orgKeyOf } from './json';

/** gRPC handlers of the credit note RPCs. */
export function creditNotesHandlers(
  deps: BillingDeps,
): Pick<billing.BillingServiceServer, 'listCreditNotes' | 'getCreditNote'> {
  return {
    listCreditNotes: jsonUnary(deps.logger, 'billing/ListCreditNotes', async (req) =>
      listCreditNotes(deps, orgKeyOf(req), req.bodyJson || '{}'),
    ),
    getCreditNote: jsonUnary(deps.logger, 'billing/GetCreditNote', async (req) => {
      const key = orgKeyOf(req);
      return creditNoteView(deps.secrets, key, await loadCreditNote(deps, key, idOf(req)));
    }),
  };
}
