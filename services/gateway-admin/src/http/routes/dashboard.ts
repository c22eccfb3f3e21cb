import { dashboardQuery, dashboardView } from '@paymesh/contracts';
import { resource } from '../route-table';
import { toCheckout } from './checkout-rpc';

/**
 * The dashboard: figures of the transactions created in a period (checkout owns them, kept as
 * incremental aggregates). It shows transaction data, so it reads with `transaction:read` (Viewer).
 */
const dashboard = resource({ tag: 'Dashboard', scopePrefix: 'transaction' });

export const dashboardRoutes = [
  dashboard({
    method: 'GET',
    path: '/dashboard',
    operationId: 'getDashboard',
    response: dashboardView,
    summary:
      'Dashboard of the transactions created in a period (startDate+endDate or period, default last_30_days; timezone; currency; siteId): gross volume, net revenue, counts by status, failure ratio, top providers, recent transactions',
    query: dashboardQuery,
    handler: toCheckout.query('getDashboard'),
  }),
];
