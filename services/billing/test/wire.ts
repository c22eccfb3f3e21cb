/**
 * The billing use cases as their gRPC edge calls them: the JSON body is decoded with the RPC map's
 * schema (@paymesh/contracts) by the one decoder first, so a test can hand over the wire's JSON.
 */
import { decodeJson } from '@paymesh/core';
import {
  billingFileRpc,
  billingRpc,
  invoicingSettingsPatch,
  portalSettingsPatch,
  siteInvoicingSettingsPatch,
} from '@paymesh/contracts';
import type { BillingDeps, OrgKey } from '../src/app/deps';
import type { InvoiceDeps } from '../src/app/invoice-deps';
import * as drafts from '../src/app/draft-invoice';
import * as corrections from '../src/app/correct-invoice';
import * as voids from '../src/app/void-invoice';
import * as lists from '../src/app/list-invoices';
import * as einvoices from '../src/app/einvoice-export';
import * as invoicing from '../src/app/invoicing-settings';
import * as siteInvoicing from '../src/app/site-invoicing-settings';
import * as portal from '../src/app/portal-settings';

export async function createInvoice(
  deps: InvoiceDeps,
  key: OrgKey,
  json: string,
  options?: drafts.CreateInvoiceOptions,
) {
  return drafts.createInvoice(deps, key, decodeJson(billingRpc.createInvoice.request, json), options);
}

export async function voidInvoice(deps: InvoiceDeps, key: OrgKey, id: string, json: string, actor: string | null) {
  return voids.voidInvoice(deps, key, id, decodeJson(billingRpc.voidInvoice.request, json), actor);
}

export async function correctInvoice(deps: InvoiceDeps, key: OrgKey, id: string, json: string, actor: string | null) {
  const input = decodeJson(billingRpc.correctInvoice.request, json, corrections.refuseUncorrectable);
  return corrections.correctInvoice(deps, key, id, input, actor);
}

export async function listInvoices(deps: BillingDeps, key: OrgKey, json: string) {
  return lists.listInvoices(deps, key, decodeJson(billingRpc.listInvoices.request, json));
}

export async function listCreditNotes(deps: BillingDeps, key: OrgKey, json: string) {
  return lists.listCreditNotes(deps, key, decodeJson(billingRpc.listCreditNotes.request, json));
}

export async function renderInvoiceEInvoice(deps: InvoiceDeps, key: OrgKey, id: string, json: string) {
  return einvoices.renderInvoiceEInvoice(deps, key, id, decodeJson(billingFileRpc.renderInvoiceEInvoice.request, json));
}

export async function updateInvoicingSettings(deps: BillingDeps, key: OrgKey, json: string) {
  return invoicing.updateInvoicingSettings(deps, key, decodeJson(invoicingSettingsPatch, json));
}

export async function updateSiteInvoicingSettings(deps: BillingDeps, key: OrgKey, siteId: string, json: string) {
  return siteInvoicing.updateSiteInvoicingSettings(deps, key, siteId, decodeJson(siteInvoicingSettingsPatch, json));
}

export async function updatePortalSettings(deps: BillingDeps, key: OrgKey, json: string) {
  return portal.updatePortalSettings(deps, key, decodeJson(portalSettingsPatch, json));
}
