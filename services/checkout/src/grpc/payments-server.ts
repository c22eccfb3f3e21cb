import { checkoutPayments } from '@paymesh/proto';
import type { GrpcServer } from '@paymesh/grpc';
import type { PaymentsDeps } from '../app/payments-deps';
import { buyerFlowHandlers } from './payments/buyer-flow';
import { checkoutHandlers } from './payments/checkouts';
import { paymentsRpcKit } from './payments/kit';
import { merchantViewHandlers } from './payments/merchant-views';
import { transactionHandlers } from './payments/transactions';

/** Registers the money-path RPCs: checkouts, handoffs and transactions (one handler file per resource). */
export function registerCheckoutPaymentsService(grpc: GrpcServer, deps: PaymentsDeps): void {
  const kit = paymentsRpcKit(deps.logger);
  const impl: checkoutPayments.CheckoutPaymentsServiceServer = {
    ...checkoutHandlers(deps, kit),
    ...transactionHandlers(deps, kit),
    ...merchantViewHandlers(deps, kit),
    ...buyerFlowHandlers(deps, kit),
  };
  grpc.addService(checkoutPayments.CheckoutPaymentsServiceService, impl);
}
