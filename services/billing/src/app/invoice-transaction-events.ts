import type { EventEnvelope } from '@paymesh/bus';
import { TransactionStatus, type TransactionStatusChangedBrief } from '@paymesh/contracts';
import type { InvoiceDoc } from '../domain/invoice';
import { settlementOf, withPayment } from '../domain/invoice-payments';
import { INVOICES } from '../store/collections';
import type { InvoiceDeps } from './invoice-deps';
import { ignoredUnlessIssued, invoiceOfEvent } from './invoice-of-transaction';
import { paymentStateOf } from './invoice-payment-state';
import { recordRefund } from './invoice-refund';

/**
 * Billing's reaction to `checkout.transaction.status_changed` for transactions that pay an invoice:
 * - 1 (completed): records the payment `{transactionId, amount, paidAt}` once per transaction;
 *   the invoice becomes `paid` when nothing is outstanding, else `partially_paid`.
 * - 3 (refunded): reverses what of that transaction's payment the refunds recorded on the
 *   transaction do not cover (their refund events credit them) with ONE credit note, see
 *   invoice-refund.ts. One reversal and one credit note per source event id.
 * - 4 (disputed): nothing; a dispute only opens. A lost or accepted outcome arrives as
 *   `checkout.chargeback.resolved` (see invoice-chargeback.ts).
 * Voided invoices take no payments or reversals (logged).
 */
export async function applyTransactionToInvoice(
  deps: InvoiceDeps,
  event: EventEnvelope<TransactionStatusChangedBrief>,
): Promise<void> {
  const d = event.data;
  if (
    d.status !== TransactionStatus.completed &&
    d.status !== TransactionStatus.refunded &&
    d.status !== TransactionStatus.disputed
  )
    return;
  const of = await invoiceOfEvent(deps, d, { status: d.status, eventId: event.id });
  if (!of) return;
  const { key, found, log } = of;
  deps.logger.info(log, 'transaction status of an invoice payment received');
  if (d.status === TransactionStatus.disputed) {
    deps.logger.info(log, 'invoice payment disputed; nothing changes until the dispute outcome');
    return;
  }
  if (ignoredUnlessIssued(deps, found, log, 'transaction outcome')) return;
  if (d.status === TransactionStatus.completed) await recordPayment(deps, found.id, d, log);
  else await recordRefund(deps, key, found, d, event, log);
}

/** Records the completed transaction `d` as a payment of invoice `id` (once: a repeat finds it recorded). */
export async function recordPayment(
  deps: InvoiceDeps,
  id: string,
  d: Pick<TransactionStatusChangedBrief, 'transactionId' | 'amount' | 'changedAt'>,
  log: Record<string, unknown>,
): Promise<void> {
  const amount = d.amount;
  if (amount === undefined || amount <= 0) {
    deps.logger.warn(log, 'completed transaction without an amount; no payment recorded');
    return;
  }
  await deps.outbox.commit(async (tx) => {
    const coll = tx.collection<InvoiceDoc>(INVOICES);
    const cur = await coll.get(id);
    if (!cur || cur.status === 'void') return;
    const next = withPayment(paymentStateOf(cur), { transactionId: d.transactionId, amount, paidAt: d.changedAt });
    if (!next) return; // recorded already
    const s = settlementOf(next);
    await coll.replace({
      ...cur,
      payments: [...next.payments],
      amountPaid: s.amountPaid,
      status: s.status,
      updatedAt: deps.clock.now().toISOString(),
    });
    deps.logger.info({ ...log, amount, amountDue: s.amountDue, invoiceStatus: s.status }, 'invoice payment recorded');
  });
}
