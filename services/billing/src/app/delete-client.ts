import { ConflictError, ErrorCode, NotFoundError } from '@paymesh/core';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import { retainedUntil, retentionOf } from '../domain/invoicing-settings';
import { getInvoicingSettings } from './invoicing-settings';
import type { ClientDoc } from '../domain/client';
import { diffClient } from '../domain/client-history';
import { CLIENTS, CREDIT_NOTES, INVOICES } from '../store/collections';
import { openClient } from './client-codec';
import { appendHistory } from './client-history-log';
import { requireClient } from './client-store';
import type { BillingDeps, OrgKey } from './deps';

/**
 * Retention (§ 147 AO): a client with issued invoices or credit notes whose retention has not ended
 * is part of the books (the debtor of vouchers that must be kept) and is not deleted; 409
 * DOCUMENT_RETAINED naming the day it may be.
 */
async function refuseWhileRetained(deps: BillingDeps, key: OrgKey, clientId: string): Promise<void> {
  const filter = { organizationId: key.organizationId, mode: key.mode, clientId };
  const [invoice, note] = await Promise.all([
    deps.store
      .collection<InvoiceDoc>(INVOICES)
      .findOne({ ...filter, status: { $ne: 'draft' } }, { sort: { issueDate: -1 } }),
    deps.store.collection<CreditNoteDoc>(CREDIT_NOTES).findOne(filter, { sort: { issueDate: -1 } }),
  ]);
  const latest = [invoice?.issueDate, note?.issueDate]
    .filter((d): d is string => !!d)
    .sort()
    .pop();
  if (!latest) return;
  const { voucherYears } = retentionOf((await getInvoicingSettings(deps, key)).settings);
  const until = retainedUntil(latest, voucherYears);
  if (deps.clock.now().toISOString().slice(0, 10) <= until)
    throw new ConflictError(
      `the client has issued invoices or credit notes (the latest of ${latest}) that must be kept until ${until} (§ 147 AO, ${voucherYears} years); it cannot be deleted before`,
      { code: ErrorCode.DOCUMENT_RETAINED },
    );
}

/**
 * Deletes a client for good (invoices keep their own snapshot of the buyer); its history stays and
 * records the deletion. Deleting it again is a 404.
 */
export async function deleteClient(
  deps: BillingDeps,
  key: OrgKey,
  clientId: string,
  actor: string,
): Promise<{ id: string; deleted: true }> {
  const doc = await requireClient(deps, key, clientId);
  await refuseWhileRetained(deps, key, doc.id);
  const before = openClient(deps, key, doc);
  const now = deps.clock.now().toISOString();
  await deps.store.transaction(async (tx) => {
    if (!(await tx.collection<ClientDoc>(CLIENTS).delete(doc.id))) throw new NotFoundError('client not found');
    await appendHistory(tx, key, {
      clientId: doc.id,
      at: now,
      actor,
      action: 'delete',
      changes: diffClient(before, null),
    });
  });
  deps.logger.info({ organizationId: key.organizationId, mode: key.mode, clientId }, 'client deleted');
  return { id: doc.id, deleted: true };
}
