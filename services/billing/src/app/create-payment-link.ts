import { ConflictError, ValidationError } from '@paymesh/core';
import type { InvoicePaymentCheckout, InvoicePaymentCheckoutRequest, InvoicePaymentLink } from '@paymesh/contracts';
import type { InvoiceDoc } from '../domain/invoice';
import { settlementOf } from '../domain/invoice-payments';
import { assertPayable, linkAmount, linkExpiryHours } from '../domain/payment-link';
import { allocateInvoiceTax } from '../domain/tax-allocation';
import { INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import type { InvoiceDeps } from './invoice-deps';
import { loadInvoice } from './invoice-view';
import { getInvoicingSettings } from './invoicing-settings';
import { paymentStateOf } from './invoice-payment-state';

/**
 * `POST /invoices/:id/payment-checkout`: a hosted payment link for an issued invoice. The amount
 * defaults to the outstanding amount (partial amounts from 50 minor units up to it); the expiry
 * defaults to the invoicing setting `autoPaymentLinkExpiresInHours` (else 336 hours). checkout
 * creates the session for the invoice's site with `invoiceNumber`, `metadata.invoiceId` and the tax
 * allocated from the invoice's tax snapshot (no items); the link is recorded on the invoice.
 */
export async function createPaymentLink(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  input: InvoicePaymentCheckoutRequest,
  actor: string | null,
): Promise<InvoicePaymentCheckout> {
  const doc = await loadInvoice(deps, key, id);
  const settlement = settlementOf(paymentStateOf(doc));
  assertPayable({
    status: doc.status,
    total: doc.totals.gross,
    outstanding: doc.status === 'void' ? 0 : settlement.amountDue,
  });
  const snap = doc.snapshot;
  if (!snap || !doc.number) throw new ValidationError('the invoice is not issued', { field: 'id' });
  const amount = linkAmount(settlement.amountDue, input.amount);
  const settings = (await getInvoicingSettings(deps, key)).settings;
  const hours = linkExpiryHours(input.expireInHours, settings.autoPaymentLinkExpiresInHours);
  const now = deps.clock.now();
  const created = await deps.checkout.createCheckout({
    ...key,
    siteId: doc.siteId,
    amount,
    currency: doc.currency,
    invoiceNumber: doc.number,
    clientId: doc.clientId,
    email: snap.buyer.email,
    returnUrl: input.returnUrl ?? null,
    cancelUrl: input.cancelUrl ?? null,
    expiresAt: new Date(now.getTime() + hours * 3_600_000).toISOString(),
    metadata: { invoiceId: doc.id },
    invoiceTax: { kind: 'invoice', invoiceId: doc.id, allocation: allocateInvoiceTax(snap.taxCalculation, amount) },
  });
  const link: InvoicePaymentLink = {
    checkoutId: created.id,
    sessionPublicId: created.sessionPublicId,
    paymentUrl: created.paymentUrl,
    amount: created.amount,
    expiresAt: created.expiresAt,
    createdAt: now.toISOString(),
  };
  await deps.store.collection<InvoiceDoc>(INVOICES).update(doc.id, (cur) => {
    if (cur.status === 'void')
      throw new ConflictError('the invoice was voided meanwhile; the payment link is not recorded');
    return { ...cur, paymentLinks: [...(cur.paymentLinks ?? []), link], updatedAt: link.createdAt };
  });
  deps.logger.info({ invoiceId: doc.id, checkoutId: created.id, amount, actor }, 'invoice payment link created');
  return {
    checkoutId: link.checkoutId,
    sessionPublicId: link.sessionPublicId,
    paymentUrl: link.paymentUrl,
    amount: link.amount,
    expiresAt: link.expiresAt,
  };
}
