import type { checkoutPayments } from '@paymesh/proto';
import { tenantOf } from '@paymesh/core';
import type { PaymentsDeps } from '../../app/payments-deps';
import { getCustomerHold, liftCustomerHold, listCustomerHolds } from '../../app/customer-holds';
import { getRiskSettings, updateRiskSettings } from '../../app/risk-settings';
import { getDashboard } from '../../app/dashboard';
import { toCustomerHoldView } from '../payments-mapping';
import { type PaymentsRpcKit } from './kit';

/** The merchant's views and settings carried as JSON: customer holds, the dashboard, risk settings. */
export function merchantViewHandlers(
  deps: PaymentsDeps,
  { json }: PaymentsRpcKit,
): Pick<
  checkoutPayments.CheckoutPaymentsServiceServer,
  | 'listCustomerHolds'
  | 'getCustomerHold'
  | 'liftCustomerHold'
  | 'getDashboard'
  | 'getRiskSettings'
  | 'updateRiskSettings'
> {
  return {
    listCustomerHolds: json('listCustomerHolds', async (query, req) => {
      const res = await listCustomerHolds(deps, tenantOf(req), query);
      return { items: res.items.map(toCustomerHoldView), total: res.total, page: res.page, limit: res.limit };
    }),
    getCustomerHold: json('getCustomerHold', async (_body, req) =>
      toCustomerHoldView(await getCustomerHold(deps, { ...tenantOf(req), id: req.id })),
    ),
    liftCustomerHold: json('liftCustomerHold', async (input, req) => {
      return toCustomerHoldView(
        await liftCustomerHold(
          deps,
          { ...tenantOf(req), id: req.id },
          { actor: req.actor || 'unknown', reason: input.reason ?? null },
        ),
      );
    }),
    getDashboard: json('getDashboard', async (query, req) => getDashboard(deps, tenantOf(req), query)),
    getRiskSettings: json('getRiskSettings', async (_body, req) => getRiskSettings(deps, tenantOf(req))),
    updateRiskSettings: json('updateRiskSettings', async (patch, req) =>
      updateRiskSettings(deps, tenantOf(req), patch),
    ),
  };
}
