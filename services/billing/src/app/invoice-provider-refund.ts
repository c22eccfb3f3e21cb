import type { EventEnvelope } from '@paymesh/bus';
import type { TransactionRefunded } from '@paymesh/contracts';
import { refundSource } from '../domain/invoice-payments';
import type { InvoiceDeps } from './invoice-deps';
import { ignoredUnlessIssued, invoiceOfEvent } from './invoice-of-transaction';
import { provenPayment, recordReversal } from './invoice-refund';

/**
 * Billing's reaction to `checkout.transaction.refunded`: a provider refund, partial or full, of a
 * transaction that paid an issued invoice reverses that amount of the payment (at most what is
 * left of it; outstanding rises) with ONE credit note of kind `refund` for it, the tax allocated
 * from the invoice snapshot, however often the event is delivered (source key
 * `refund:<refundId>`). When the invoice has not recorded the transaction's payment yet (its
 * status event is handled by another consumer and may come later), the refund records it first.
 */
export async function applyRefundToInvoice(
  deps: InvoiceDeps,
  event: EventEnvelope<TransactionRefunded>,
): Promise<void> {
  const d = event.data;
  const of = await invoiceOfEvent(deps, d, { refundId: d.refundId, amount: d.amount, eventId: event.id });
  if (!of) return;
  const { key, found, log } = of;
  deps.logger.info(log, 'refund of an invoice payment received');
  if (ignoredUnlessIssued(deps, found, log, 'refund')) return;
  if (d.currency !== found.currency) {
    deps.logger.warn(
      { ...log, currency: d.currency, invoiceCurrency: found.currency },
      'refund in another currency than the invoice; ignored',
    );
    return;
  }
  const source = refundSource(d.refundId);
  await recordReversal(
    deps,
    key,
    found,
    {
      transactionId: d.transactionId,
      kind: 'refund',
      sourceEventId: source,
      sourceKey: source,
      reason: `Refund ${d.refundId} of payment ${d.transactionId}`,
      limit: () => d.amount,
      ...provenPayment(d),
    },
    log,
  );
}
