import { checkout, checkoutPayments, billing, documents, notificationsIpn, paymentsWebhooks, recurring, tax } from '@paymesh/proto';
import { checkHealth, makeClient } from '@paymesh/grpc';
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
  addresses: Record<BackendService, string>;
  deadlineMs: number;
  health(service: BackendService): Promise<boolean>;
  close(): void;
}

export function createClients(config: DownstreamAddrs & { GRPC_DEADLINE_MS: number }): Clients {
  const services: BackendService[] = ['checkout', 'payments-webhooks', 'billing', 'tax', 'recurring', 'documents', 'notifications-ipn'];
  const addresses = Object.fromEntries(services.map((s) => [s, downstreamAddr(config, s)])) as Record<BackendService, string>;
  const c = {
    checkout: makeClient(checkout.CheckoutServiceClient, addresses.checkout),
    checkoutPayments: makeClient(checkoutPayments.CheckoutPaymentsServiceClient, addresses.checkout),
    paymentsWebhooks: makeClient(paymentsWebhooks.PaymentsWebhooksServiceClient, addresses['payments-webhooks']),
    billing: makeClient(billing.BillingServiceClient, addresses.billing),
    tax: makeClient(tax.TaxServiceClient, addresses.tax),
    recurring: makeClient(recurring.RecurringServiceClient, addresses.recurring),
    documents: makeClient(documents.DocumentsServiceClient, addresses.documents),
    notificationsIpn: makeClient(notificationsIpn.NotificationsIpnServiceClient, addresses['notifications-ipn']),
  };
  return {
    ...c,
    addresses,
    deadlineMs: config.GRPC_DEADLINE_MS,
    health: (service) => checkHealth(addresses[service]),
    close() {
      for (const client of Object.values(c)) client.close();
    },
  };
}
