import { call, makeClient } from '@paymesh/grpc';
import { isDomainError, UnavailableError, ErrorCode } from '@paymesh/core';
import { paymentsWebhooks } from '@paymesh/proto';
import type { CreatedPayment, CreatePaymentInput, PaymentsPort, ProviderInfo } from '../app/payments-port';

function toInfo(p: paymentsWebhooks.Provider): ProviderInfo {
  return { id: p.id, organizationId: p.organizationId, type: p.type, enabled: p.enabled, testMode: p.testMode };
}

/** An RPC payments-webhooks does not offer (yet) is a dependency outage for us: 503, not 501. */
function unimplementedAsUnavailable(err: unknown): never {
  if (isDomainError(err) && err.kind === 'not_supported') {
    throw new UnavailableError(`payment providers are not available: ${err.message}`, {
      code: ErrorCode.PAYMENTS_UNAVAILABLE,
      cause: err,
    });
  }
  throw err;
}

const PAGE = 100;
const MAX_PAGES = 20;

/** {@link PaymentsPort} over the payments-webhooks gRPC contract. */
export function grpcPaymentsPort(
  address: string,
  deadlines: { lookupMs: number; paymentMs: number },
): PaymentsPort & { close(): void } {
  const client = makeClient(paymentsWebhooks.PaymentsWebhooksServiceClient, address);
  const target = 'payments-webhooks';
  const lookup = { deadlineMs: deadlines.lookupMs, target };
  const payment = { deadlineMs: deadlines.paymentMs, target };
  return {
    async getProvider(ref) {
      const p = await call(client, client.getProvider, ref, lookup).catch(unimplementedAsUnavailable);
      return toInfo(p);
    },
    async listProviders(q) {
      const out: ProviderInfo[] = [];
      for (let page = 1; page <= MAX_PAGES; page++) {
        const res = await call(client, client.listProviders, { ...q, page, limit: PAGE }, lookup).catch(
          unimplementedAsUnavailable,
        );
        out.push(...res.items.map(toInfo));
        if (res.items.length < PAGE || out.length >= res.total) break;
      }
      return out;
    },
    async createPayment(input: CreatePaymentInput): Promise<CreatedPayment> {
      const res = await call(client, client.createPayment, input, payment).catch(unimplementedAsUnavailable);
      return {
        providerType: res.providerType,
        providerPaymentId: res.providerPaymentId,
        redirectUrl: res.redirectUrl,
        clientSecret: res.clientSecret,
      };
    },
    async cancelPayment(input) {
      const res = await call(client, client.cancelPayment, input, payment).catch(unimplementedAsUnavailable);
      return { cancelled: res.cancelled };
    },
    close() {
      client.close();
    },
  };
}
