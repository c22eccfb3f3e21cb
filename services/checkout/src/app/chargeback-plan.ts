import { newObjectId } from '@paymesh/core';
import { eventId } from '@paymesh/bus';
import { Subjects, type ChargebackResolved } from '@paymesh/contracts';
import {
  blocksFor,
  buyerKeys,
  buyerOf,
  disputeRef,
  holdActionFor,
  holdRef,
  type BuyerBlockDoc,
  type CustomerHoldDoc,
  type RiskSettings,
} from '../domain/customer-hold';
import { isFinalChargeback, moneyBackFields, type Chargeback, type TransactionDoc } from '../domain/transaction';
import type { Trigger } from '../domain/transaction-state';
import { BUYER_BLOCKS, CUSTOMER_HOLDS } from '../store/collections';
import type { TransitionPlan, TxScope } from './transition';

/** A new status of a chargeback, from the provider or an operator: the dispute as it now stands. */
export interface ChargebackChange extends Pick<Chargeback, 'id' | 'status' | 'amount' | 'currency' | 'reason'> {
  /** When the change happened. */
  at: string;
  /** `provider`, or the operator (`user:<id>`, `api_key:<id>`, `system_key:<id>`). */
  decidedBy: string;
}

/** The buyer of a transaction: its e-mail, the billing address's and the client ID. */
export function transactionBuyer(doc: Pick<TransactionDoc, 'email' | 'billingAddress' | 'clientId'>) {
  return buyerOf([doc.email, doc.billingAddress?.email], doc.clientId);
}

/**
 * Applies a chargeback status to the transaction, the same way for provider reports and manual
 * resolution (caller has ruled out a change of a decided chargeback):
 * - the record is created or updated in `chargebacks`;
 * - open / under_review: the buyer is flagged (checkout blocked by dispute) while it is active;
 * - won / lost / accepted: the flag goes, `checkout.chargeback.resolved` is enqueued (billing's
 *   chargeback credit note for lost / accepted), and lost / accepted create a customer risk hold
 *   when the organization's policy asks for one;
 * all in the store transaction that writes the transaction (status via the state machine).
 */
export function chargebackPlan(
  cur: TransactionDoc,
  change: ChargebackChange,
  opts: { trigger: Trigger; providerEventId?: string; risk: RiskSettings; note?: string | null },
): TransitionPlan {
  const list = cur.chargebacks ?? [];
  const existing = list.find((c) => c.id === change.id);
  const final = isFinalChargeback(change.status);
  const record: Chargeback = {
    id: change.id,
    status: change.status,
    amount: change.amount,
    currency: change.currency,
    reason: change.reason,
    at: existing?.at ?? change.at,
    updatedAt: change.at,
    resolvedAt: final ? change.at : null,
    decidedBy: change.decidedBy,
    decisionReason: opts.note ?? null,
  };
  const chargebacks = existing ? list.map((c) => (c.id === change.id ? record : c)) : [...list, record];
  const wasActive = existing !== undefined && !isFinalChargeback(existing.status);
  return {
    trigger: opts.trigger,
    ...(opts.providerEventId ? { providerEventId: opts.providerEventId } : {}),
    reason: `dispute ${change.id} ${change.status}${opts.note ? `: ${opts.note}` : ''}`,
    patch: { chargebacks },
    ...(final
      ? { emit: (tx: TxScope, stored: TransactionDoc, at: string) => emitResolved(tx, stored, record, at) }
      : {}),
    write: async (tx, stored, at) => {
      if (!final) {
        if (!wasActive) await flagDispute(tx, stored, record, at);
        return;
      }
      await tx.collection<BuyerBlockDoc>(BUYER_BLOCKS).deleteMany({ ref: disputeRef(stored.id, record.id) });
      const action = holdActionFor(opts.risk, record.status);
      if (action) await createHold(tx, stored, record, action, opts.risk, at);
    },
  };
}

async function flagDispute(tx: TxScope, doc: TransactionDoc, c: Chargeback, at: string): Promise<void> {
  const rows = blocksFor(
    {
      organizationId: doc.organizationId,
      mode: doc.mode,
      kind: 'dispute',
      ref: disputeRef(doc.id, c.id),
      action: null,
      safeProviderTypes: [],
      createdAt: at,
    },
    transactionBuyer(doc),
  );
  const blocks = tx.collection<BuyerBlockDoc>(BUYER_BLOCKS);
  for (const row of rows) await blocks.insert({ id: newObjectId(), ...row });
}

async function createHold(
  tx: TxScope,
  doc: TransactionDoc,
  c: Chargeback,
  action: CustomerHoldDoc['action'],
  risk: RiskSettings,
  at: string,
): Promise<void> {
  const buyer = transactionBuyer(doc);
  // Nothing identifies the buyer (no e-mail, no client): a hold could never match anyone.
  if (buyerKeys(buyer).length === 0) return;
  const safeProviderTypes = action === 'restrict' ? risk.safeProviderTypes : [];
  const hold = await tx.collection<CustomerHoldDoc>(CUSTOMER_HOLDS).insert({
    id: newObjectId(),
    organizationId: doc.organizationId,
    mode: doc.mode,
    status: 'active',
    action,
    safeProviderTypes,
    buyer,
    buyerEmail: buyer.emails[0] ?? null,
    source: {
      transactionId: doc.id,
      chargebackId: c.id,
      outcome: c.status as 'lost' | 'accepted',
      decidedBy: c.decidedBy ?? 'provider',
    },
    sourceKey: `${doc.id}:${c.id}`,
    createdAt: at,
    updatedAt: at,
    liftedAt: null,
    liftedBy: null,
    liftReason: null,
  });
  const blocks = tx.collection<BuyerBlockDoc>(BUYER_BLOCKS);
  const rows = blocksFor(
    {
      organizationId: doc.organizationId,
      mode: doc.mode,
      kind: 'hold',
      ref: holdRef(hold.id),
      action,
      safeProviderTypes,
      createdAt: at,
    },
    buyer,
  );
  for (const row of rows) await blocks.insert({ id: newObjectId(), ...row });
}

function emitResolved(tx: TxScope, doc: TransactionDoc, c: Chargeback, at: string): void {
  // With the payment the chargeback reverses (billing records it first when its status event is late).
  const data: ChargebackResolved = {
    ...moneyBackFields(doc),
    chargebackId: c.id,
    outcome: c.status as ChargebackResolved['outcome'],
    amount: c.amount,
    currency: c.currency,
    resolvedAt: c.resolvedAt ?? at,
  };
  tx.emit(Subjects.chargebackResolved, data, {
    id: eventId(Subjects.chargebackResolved, doc.id, c.id),
    occurredAt: at,
  });
}
