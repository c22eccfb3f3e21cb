import {
  customerHoldListQuery,
  customerHoldPage,
  customerHoldView,
  liftCustomerHoldBody,
  riskSettingsPatch,
  riskSettingsView,
} from './customer-holds';
import { dashboardQuery, dashboardView } from './dashboard';
import { emptyBody, jsonRpc } from './rpc';

/**
 * The checkout service's document-shaped RPCs (customer holds, risk settings, dashboard figures):
 * method -> body schema and answer schema. Checkouts and transactions are proto messages.
 */
export const checkoutRpc = {
  listCustomerHolds: jsonRpc(customerHoldListQuery, customerHoldPage),
  getCustomerHold: jsonRpc(emptyBody, customerHoldView),
  liftCustomerHold: jsonRpc(liftCustomerHoldBody, customerHoldView),
  getRiskSettings: jsonRpc(emptyBody, riskSettingsView),
  updateRiskSettings: jsonRpc(riskSettingsPatch, riskSettingsView),
  getDashboard: jsonRpc(dashboardQuery, dashboardView),
} as const;
