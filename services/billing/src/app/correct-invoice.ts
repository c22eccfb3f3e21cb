import { ConflictError, ErrorCode, ValidationError } from '@paymesh/core';
import { appendChainEntry, invoiceEntry } from './document-chain';
import {
  CORRECTABLE_BUYER_FIELDS,
  type InvoiceCorrection,
  type InvoiceNotesUpdate,
  type InvoiceRecord,
} from '@paymesh/contracts';
import type { InvoiceDoc, StoredBuyer } from '../domain/invoice';
import { INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import type { InvoiceDeps } from './invoice-deps';
import { openBuyer, sealBuyer } from './invoice-sealing';
import { invoiceView, loadInvoice } from './invoice-view';

const CORRECTABLE = `changes.client.{${CORRECTABLE_BUYER_FIELDS.join(', ')}}`;

/**
 * Names the first field a correction cannot change, before schema checks, so the answer says what
 * can: the precheck of the body of `CorrectInvoice` (see the gRPC edge).
 */
export function refuseUncorrectable(raw: unknown): void {
  const changes = (raw as { changes?: unknown } | null)?.changes;
  if (!changes || typeof changes !== 'object' || Array.isArray(changes)) return;
  for (const k of Object.keys(changes)) {
    if (k === 'client') {
      const client = (changes as { client?: unknown }).client;
      if (client && typeof client === 'object' && !Array.isArray(client)) {
        const bad = Object.keys(client).find((f) => !(CORRECTABLE_BUYER_FIELDS as readonly string[]).includes(f));
        if (bad)
          throw new ValidationError(
            `changes.client.${bad} cannot be corrected; a correction may change only ${CORRECTABLE}`,
            { field: `changes.client.${bad}` },
          );
      }
      continue;
    }
    throw new ValidationError(
      `changes.${k} cannot be corrected: a correction may change only ${CORRECTABLE}; amounts and lines need a void (credit note) and a new invoice`,
      { field: `changes.${k}` },
    );
  }
}

/**
 * `POST /invoices/:id/correct`: changes the issued invoice's buyer snapshot only (never the client
 * record) and appends `{at, actor, reason, changes, previous}` to `corrections`.
 */
export async function correctInvoice(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  input: InvoiceCorrection,
  actor: string | null,
): Promise<InvoiceRecord> {
  const at = deps.clock.now().toISOString();
  await loadInvoice(deps, key, id);
  // The corrected snapshot joins the invoice chain in the same transaction.
  const stored = await deps.store.transaction(async (tx) => {
    const next = await tx.collection<InvoiceDoc>(INVOICES).update(id, (cur) => {
      if (cur.status === 'draft' || !cur.snapshot) {
        throw new ConflictError('a draft is changed with PUT /invoices/:id; only issued invoices are corrected', {
          code: ErrorCode.INVOICE_NOT_DRAFT,
        });
      }
      if (cur.status === 'void')
        throw new ConflictError('a void invoice cannot be corrected', { code: ErrorCode.INVOICE_NOT_VOIDABLE });
      const before = openBuyer(deps.secrets, key, cur.snapshot.buyer);
      const change = input.changes.client;
      const after = {
        ...before,
        ...change,
        peppolRoutingAddress:
          change.peppolRoutingAddress !== undefined ? change.peppolRoutingAddress : before.peppolRoutingAddress,
      };
      const previous: Record<string, unknown> = {};
      for (const f of Object.keys(change) as Array<keyof typeof change>) previous[f] = before[f];
      const buyer: StoredBuyer = sealBuyer(deps.secrets, key, after);
      return {
        ...cur,
        snapshot: { ...cur.snapshot, buyer },
        corrections: [
          ...cur.corrections,
          { at, actor, reason: input.reason, changes: { client: change }, previous: { client: previous } },
        ],
        updatedAt: at,
      };
    });
    await appendChainEntry(tx, key, invoiceEntry(next, 'correction', at));
    return next;
  });
  deps.logger.info({ invoiceId: id, fields: Object.keys(input.changes.client), actor }, 'invoice snapshot corrected');
  return invoiceView(deps.secrets, key, stored);
}

/** `PATCH /invoices/:id/notes`: any status; notes are a merchant remark, not part of the legal snapshot. */
export async function updateInvoiceNotes(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  input: InvoiceNotesUpdate,
): Promise<InvoiceRecord> {
  await loadInvoice(deps, key, id);
  const at = deps.clock.now().toISOString();
  const stored = await deps.store.collection<InvoiceDoc>(INVOICES).update(id, (cur) => {
    const notes = input.notes === '' ? null : input.notes;
    if (cur.notes === notes) return null;
    return { ...cur, notes, updatedAt: at };
  });
  return invoiceView(deps.secrets, key, stored);
}
