import type { EventEnvelope } from '@paymesh/bus';
import type { ChargebackResolved } from '@paymesh/contracts';
import type { InvoiceDeps } from './invoice-deps';
import { ignoredUnlessIssued, invoiceOfEvent } from './invoice-of-transaction';
import { provenPayment, recordReversal } from './invoice-refund';

/**
 * Billing's reaction to `checkout.chargeback.resolved`: a chargeback `lost` or `accepted` on a
 * transaction that paid an issued invoice reverses what is left of that payment (outstanding
 * rises) with ONE credit note of kind `chargeback`, however often the event is delivered (keyed
 * by transaction and chargeback id, whatever the event id: the credit note's unique source key and
 * the reversal's source are both `chargeback:<transaction>:<chargeback>`, and the invoice is written
 * with compare-and-set in the same store transaction). `won` changes nothing. The invoice is the one
 * the checkout was created for (accepted only when that checkout is one of its payment links), else
 * the invoice the transaction is linked to. A chargeback proves its payment: when the transaction's
 * status event (another consumer) has not recorded that payment yet, the chargeback records it
 * first, so the credit note is never lost to the order in which the two events arrive.
 */
export async function applyChargebackToInvoice(
  deps: InvoiceDeps,
  event: EventEnvelope<ChargebackResolved>,
): Promise<void> {
  const d = event.data;
  if (d.outcome === 'won') return;
  const of = await invoiceOfEvent(deps, d, { chargebackId: d.chargebackId, outcome: d.outcome, eventId: event.id });
  if (!of) return;
  const { key, found, log } = of;
  if (ignoredUnlessIssued(deps, found, log, 'chargeback')) return;
  const source = `${d.transactionId}:${d.chargebackId}`;
  await recordReversal(
    deps,
    key,
    found,
    {
      transactionId: d.transactionId,
      kind: 'chargeback',
      sourceEventId: `chargeback:${source}`,
      sourceKey: `chargeback:${source}`,
      reason: `Chargeback ${d.chargebackId} (${d.outcome}) of payment ${d.transactionId}`,
      ...provenPayment(d),
    },
    log,
  );
}
