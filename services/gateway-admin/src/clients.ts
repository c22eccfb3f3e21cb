import {
  checkout,
  checkoutPayments,
  billing,
  documents,
  notificationsIpn,
  paymentsWebhooks,
  recurring,
  tax,
} from '@paymesh/proto';
import { makeClient } from '@paymesh/grpc';
import { downstreamAddr, type BackendService, type DownstreamAddrs } from '@paymesh/runtime';

/** gRPC clients of the backend services this gateway routes to. */
export interface Clients {
  checkout: checkout.CheckoutServiceClient;
  checkoutPayments: checkoutPayments.CheckoutPaymentsServiceClient;
  paymentsWebhooks: paymentsWebhooks.PaymentsWebhooksServiceClient;
  billing: billing.BillingServiceClient;
  tax: tax.TaxServiceClient;
  recurring: recurring.RecurringServiceClient;
  documents: documents.DocumentsServiceClient;
  notificationsIpn: notificationsIpn.NotificationsIpnServiceClient;
  deadlineMs: number;
  /** Deadline of calls that may render a document (Chromium), longer than the usual one. */
  documentDeadlineMs: number;
  close(): void;
}

export function createClients(
  config: DownstreamAddrs & { GRPC_DEADLINE_MS: number; DOCUMENTS_DEADLINE_MS?: number },
): Clients {
  const at = (s: BackendService) => downstreamAddr(config, s);
  const c = {
    checkout: makeClient(checkout.CheckoutServiceClient, at('checkout')),
    checkoutPayments: makeClient(checkoutPayments.CheckoutPaymentsServiceClient, at('checkout')),
    paymentsWebhooks: makeClient(paymentsWebhooks.PaymentsWebhooksServiceClient, at('payments-webhooks')),
    billing: makeClient(billing.BillingServiceClient, at('billing')),
    tax: makeClient(tax.TaxServiceClient, at('tax')),
    recurring: makeClient(recurring.RecurringServiceClient, at('recurring')),
    documents: makeClient(documents.DocumentsServiceClient, at('documents')),
    notificationsIpn: makeClient(notificationsIpn.NotificationsIpnServiceClient, at('notifications-ipn')),
  };
  return {
    ...c,
    deadlineMs: config.GRPC_DEADLINE_MS,
    documentDeadlineMs: Math.max(config.DOCUMENTS_DEADLINE_MS ?? config.GRPC_DEADLINE_MS, config.GRPC_DEADLINE_MS),
    close() {
      for (const client of Object.values(c)) client.close();
    },
  };
}
