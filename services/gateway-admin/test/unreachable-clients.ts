import { createClients, type Clients } from '../src/clients';

/** An address nothing listens on: every call ends in UNAVAILABLE (503) at once. */
const DEAD = '127.0.0.1:1';

/** The gateway's clients with every backend unreachable, for tests that stop before or at the backend call. */
export function unreachableClients(): Clients {
  return createClients({
    CHECKOUT_GRPC_ADDR: DEAD,
    PAYMENTS_WEBHOOKS_GRPC_ADDR: DEAD,
    BILLING_GRPC_ADDR: DEAD,
    TAX_GRPC_ADDR: DEAD,
    RECURRING_GRPC_ADDR: DEAD,
    DOCUMENTS_GRPC_ADDR: DEAD,
    NOTIFICATIONS_IPN_GRPC_ADDR: DEAD,
    GRPC_DEADLINE_MS: 300,
  });
}
