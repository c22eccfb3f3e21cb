import { paymentsWebhooks } from '@paymesh/proto';
import { makeClient } from '@paymesh/grpc';
import { downstreamAddr, type DownstreamAddrs } from '@paymesh/runtime';

/** gRPC clients of the backend services the Main Backend routes to. */
export interface Clients {
  paymentsWebhooks: paymentsWebhooks.PaymentsWebhooksServiceClient;
  deadlineMs: number;
  close(): void;
}

export function createClients(config: DownstreamAddrs & { GRPC_DEADLINE_MS: number }): Clients {
  const pw = makeClient(paymentsWebhooks.PaymentsWebhooksServiceClient, downstreamAddr(config, 'payments-webhooks'));
  return {
    paymentsWebhooks: pw,
    deadlineMs: config.GRPC_DEADLINE_MS,
    close() {
      pw.close();
    },
  };
}
