import {
  chargebackResolved,
  emailSettled,
  siteCreated,
  Subjects,
  transactionRefunded,
  transactionStatusChangedBrief,
  type ChargebackResolved,
  type EmailSettled,
  type SiteCreated,
  type TransactionRefunded,
  type TransactionStatusChangedBrief,
} from '@paymesh/contracts';
import type { Bus, EventEnvelope } from '@paymesh/bus';
import { autoGenerateInvoice } from '../app/auto-generate-invoice';
import { applyChargebackToInvoice } from '../app/invoice-chargeback';
import { initSiteInvoicing } from '../app/init-site-invoicing';
import type { InvoiceDeps } from '../app/invoice-deps';
import { applyRefundToInvoice } from '../app/invoice-provider-refund';
import { applyTransactionToInvoice } from '../app/invoice-transaction-events';
import { settleDocumentEmail } from '../app/settle-document-email';

/** Billing's reactions to other services' events. */
export async function startConsumers(bus: Bus, deps: InvoiceDeps) {
  const { store, logger } = deps;
  const sites = await bus.subscribe<SiteCreated>({
    durable: 'site-created',
    // Money and tenancy facts are never dropped: retried (capped backoff) until handled.
    maxDeliver: -1,
    subjects: Subjects.siteCreated,
    decode: (d) => siteCreated.parse(d),
    handler: async (event: EventEnvelope<SiteCreated>) => {
      logger.info({ eventId: event.id, siteId: event.data.siteId }, 'checkout.site.created received');
      await initSiteInvoicing(store, logger, { ...event.data, at: event.occurredAt });
    },
  });
  // A transaction's status changes, one delivery for both of billing's reactions (each idempotent
  // per transaction / event): payments, refunds and disputes of transactions that pay invoices,
  // then the automatic invoice of a completed sale. It takes over from the two durables earlier
  // versions read the subject with (ADR 0092): created while they exist, it starts after what both
  // acknowledged; they are left for the rollout's old replicas and deleted after it.
  const transactions = await bus.subscribe<TransactionStatusChangedBrief>({
    durable: 'transaction-status',
    takesOverFrom: ['invoice-transaction-status', 'auto-invoices'],
    maxDeliver: -1,
    subjects: Subjects.transactionStatusChanged,
    decode: (d) => transactionStatusChangedBrief.parse(d),
    handler: async (event: EventEnvelope<TransactionStatusChangedBrief>) => {
      await applyTransactionToInvoice(deps, event);
      const outcome = await autoGenerateInvoice(deps, event.data);
      if (outcome !== 'not_completed')
        logger.debug(
          { eventId: event.id, transactionId: event.data.transactionId, outcome },
          'automatic invoice considered',
        );
    },
  });
  // Lost or accepted chargebacks of invoice payments: one chargeback credit note each.
  const chargebacks = await bus.subscribe<ChargebackResolved>({
    durable: 'invoice-chargeback-resolved',
    maxDeliver: -1,
    subjects: Subjects.chargebackResolved,
    decode: (d) => chargebackResolved.parse(d),
    handler: async (event: EventEnvelope<ChargebackResolved>) => applyChargebackToInvoice(deps, event),
  });
  // Provider refunds (partial or full) of invoice payments: one refund credit note each.
  const refunds = await bus.subscribe<TransactionRefunded>({
    durable: 'invoice-transaction-refunded',
    maxDeliver: -1,
    subjects: Subjects.transactionRefunded,
    decode: (d) => transactionRefunded.parse(d),
    handler: async (event: EventEnvelope<TransactionRefunded>) => applyRefundToInvoice(deps, event),
  });
  const emails = await bus.subscribe<EmailSettled>({
    durable: 'email-settled',
    // The record of a send on a legal document is kept as long as it takes.
    maxDeliver: -1,
    // notifications.email.delivered and .failed (one filter: the NATS server may predate 2.10).
    subjects: 'notifications.email.*',
    decode: (d) => emailSettled.parse(d),
    handler: async (event: EventEnvelope<EmailSettled>) => settleDocumentEmail(deps.store, deps.logger, event.data),
  });
  return [sites, transactions, chargebacks, refunds, emails];
}
