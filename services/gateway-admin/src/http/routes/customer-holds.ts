import {
  customerHoldListQuery,
  customerHoldPage,
  customerHoldView,
  liftCustomerHoldBody,
  riskSettingsPatch,
  riskSettingsView,
} from '@paymesh/contracts';
import { resource } from '../route-table';
import { toCheckout } from './checkout-rpc';
import { idParams } from './common';

const organizationSettings = resource({ tag: 'Organization settings', scopePrefix: 'organization' });

/**
 * Customer risk holds (checkout): created when a dispute is lost or accepted, per the
 * organization's hold policy. They come from chargebacks, so they use the chargeback scopes:
 * reading needs `transaction:read` (Viewer), lifting `transaction:execute` and the Admin role.
 */
const holds = resource({ tag: 'Customer holds', scopePrefix: 'transaction' });

export const customerHoldRoutes = [
  holds({
    method: 'GET',
    path: '/customer-holds',
    operationId: 'listCustomerHolds',
    response: customerHoldPage,
    summary:
      'List customer risk holds, newest first (status active|lifted, email, clientId, transactionId, page, limit)',
    query: customerHoldListQuery,
    handler: toCheckout.query('listCustomerHolds'),
  }),
  holds({
    method: 'GET',
    path: '/customer-holds/:id',
    operationId: 'getCustomerHold',
    response: customerHoldView,
    summary: 'Get a customer risk hold',
    params: idParams,
    handler: toCheckout.byId('getCustomerHold'),
  }),
  holds({
    method: 'POST',
    path: '/customer-holds/:id/lift',
    action: 'execute',
    role: 'Admin',
    status: 200,
    operationId: 'liftCustomerHold',
    response: customerHoldView,
    summary:
      'Lift a customer risk hold: the buyer may check out again; who lifted it, when and why are kept (a lifted hold answers unchanged)',
    params: idParams,
    body: liftCustomerHoldBody,
    handler: toCheckout.byIdBodyActing('liftCustomerHold'),
  }),
];

/** The organization's hold policy: reads Viewer, writes Admin (like every organization setting). */
export const riskSettingsRoutes = [
  organizationSettings({
    method: 'GET',
    action: 'execute',
    path: '/organizations/settings/risk',
    operationId: 'getRiskSettings',
    response: riskSettingsView,
    summary:
      'Customer risk hold policy: what a lost or accepted dispute does to the buyer (defaults until first saved: block)',
    handler: toCheckout.bare('getRiskSettings'),
  }),
  organizationSettings({
    method: 'PUT',
    action: 'execute',
    path: '/organizations/settings/risk',
    operationId: 'updateRiskSettings',
    response: riskSettingsView,
    errors: [409],
    role: 'Admin',
    summary:
      'Update the customer risk hold policy (partial; safeProviderTypes replaced whole; applies to holds created afterwards)',
    body: riskSettingsPatch,
    handler: toCheckout.body('updateRiskSettings'),
  }),
];
