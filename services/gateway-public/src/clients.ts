import { billing, checkoutPayments, notificationsIpn, paymentsWebhooks, recurring, tax } from '@paymesh/proto';
import { billingRpc, recurringRpc, taxRpc, type JsonRpcMap } from '@paymesh/contracts';
import { call, jsonCallerPerClients, makeClient, type JsonCaller, type UnaryMethod } from '@paymesh/grpc';
import type { Client } from '@grpc/grpc-js';
import { downstreamAddr, type DownstreamAddrs } from '@paymesh/runtime';

/** gRPC clients of the backend services the Main Backend routes to. */
export interface Clients {
  paymentsWebhooks: paymentsWebhooks.PaymentsWebhooksServiceClient;
  checkoutPayments: checkoutPayments.CheckoutPaymentsServiceClient;
  /** VAT ID checks (VIES) and EU country facts. */
  tax: tax.TaxServiceClient;
  /** Buyer portal: the buyer's documents and the organization's portal settings. */
  billing: billing.BillingServiceClient;
  /** Buyer portal: the buyer's recurring subscriptions. */
  recurring: recurring.RecurringServiceClient;
  /** Buyer portal: sign-in codes by e-mail. */
  notifications: notificationsIpn.NotificationsIpnServiceClient;
  deadlineMs: number;
  /** Deadline of calls that reach a payment provider through checkout (create, cancel). */
  paymentDeadlineMs: number;
  /** Deadline of the tax preview (checkout asks tax, which may ask VIES). */
  taxDeadlineMs: number;
  close(): void;
}

export function createClients(
  config: DownstreamAddrs & {
    GRPC_DEADLINE_MS: number;
    PAYMENT_CALL_DEADLINE_MS: number;
    TAX_CALL_DEADLINE_MS: number;
  },
): Clients {
  const pw = makeClient(paymentsWebhooks.PaymentsWebhooksServiceClient, downstreamAddr(config, 'payments-webhooks'));
  const cp = makeClient(checkoutPayments.CheckoutPaymentsServiceClient, downstreamAddr(config, 'checkout'));
  const tx = makeClient(tax.TaxServiceClient, downstreamAddr(config, 'tax'));
  const bl = makeClient(billing.BillingServiceClient, downstreamAddr(config, 'billing'));
  const rc = makeClient(recurring.RecurringServiceClient, downstreamAddr(config, 'recurring'));
  const nt = makeClient(notificationsIpn.NotificationsIpnServiceClient, downstreamAddr(config, 'notifications-ipn'));
  return {
    paymentsWebhooks: pw,
    checkoutPayments: cp,
    tax: tx,
    billing: bl,
    recurring: rc,
    notifications: nt,
    deadlineMs: config.GRPC_DEADLINE_MS,
    paymentDeadlineMs: config.PAYMENT_CALL_DEADLINE_MS,
    taxDeadlineMs: config.TAX_CALL_DEADLINE_MS,
    close() {
      pw.close();
      cp.close();
      tx.close();
      bl.close();
      rc.close();
      nt.close();
    },
  };
}

/** Calls a backend RPC with the request's context and a deadline. */
export function rpc<Req, Res>(
  client: Client,
  method: Parameters<typeof call<Req, Res>>[1],
  req: Req,
  deadlineMs: number,
  target = 'checkout',
): Promise<Res> {
  return call(client, method, req, { deadlineMs, target });
}

/**
 * Calls one of checkout's RPCs (CheckoutPaymentsService) with the request's context:
 * `checkoutCall(clients, (cp) => cp.consumeHandoff, req)`; `deadlineMs` when not the usual one.
 */
export function checkoutCall<Req, Res>(
  clients: Clients,
  method: (cp: Clients['checkoutPayments']) => UnaryMethod<Req, Res>,
  req: Req,
  deadlineMs: number = clients.deadlineMs,
): Promise<Res> {
  const cp = clients.checkoutPayments;
  return call(cp, method(cp), req, { deadlineMs, target: 'checkout' });
}

/** A backend's JSON-answer envelope RPCs, made once per set of clients. */
type JsonOf<J extends JsonRpcMap> = (clients: Clients) => JsonCaller<J>;
/** Billing's (buyer portal documents). */
export const billingJson: JsonOf<typeof billingRpc> = jsonCallerPerClients('billing', (c) => c.billing, billingRpc);
/** Recurring's (buyer portal subscriptions). */
export const recurringJson: JsonOf<typeof recurringRpc> = jsonCallerPerClients(
  'recurring',
  (c) => c.recurring,
  recurringRpc,
);
/** Tax's (VAT ID checks, EU country facts). */
export const taxJson: JsonOf<typeof taxRpc> = jsonCallerPerClients('tax', (c) => c.tax, taxRpc);
