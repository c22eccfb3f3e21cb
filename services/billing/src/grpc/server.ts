import { billing } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { decodeJson, isObjectId, ValidationError } from '@paymesh/core';
import { invoicingSettingsPatch, portalSettingsPatch, siteInvoicingSettingsPatch } from '@paymesh/contracts';
import { billingEdge, orgKeyOf } from './json';
import type { InvoiceDeps } from '../app/invoice-deps';
import { getInvoicingSettings, previewNumbers, updateInvoicingSettings } from '../app/invoicing-settings';
import { getSiteInvoicingSettings, updateSiteInvoicingSettings } from '../app/site-invoicing-settings';
import { getPortalSettings, updatePortalSettings } from '../app/portal-settings';
import { invoicingSettingsMessage, siteInvoicingMessage } from './mapping';
import { clientsHandlers } from './clients-handlers';
import { invoicesHandlers } from './invoices-handlers';
import { paymentLinksHandlers } from './payment-links-handlers';
import { emailHandlers } from './email-handlers';
import { creditNotesHandlers } from './credit-notes-handlers';
import { documentsHandlers } from './documents-handlers';
import { einvoiceHandlers } from './einvoice-handlers';
import { integrityHandlers } from './integrity-handlers';
import { dataIoHandlers } from './data-io-handlers';
import type { GdpduDeps } from '../app/gdpdu-export';
import { portalHandlers } from './portal-handlers';
import { verifySender, type SenderDnsPort } from '../app/sender-verification';

const SERVICE_VERSION = '0.1.0';

function siteId(id: string): string {
  if (!isObjectId(id)) throw new ValidationError('siteId must be a 24-hex identifier', { field: 'siteId' });
  return id;
}

export function registerBillingService(grpc: GrpcServer, deps: InvoiceDeps & GdpduDeps & { dns: SenderDnsPort }): void {
  const { logger, secrets } = deps;
  const rpc = billingEdge(logger);
  const impl: billing.BillingServiceServer = {
    describe: unary(logger, 'billing/Describe', async () => ({ service: 'billing', version: SERVICE_VERSION })),
    getInvoicingSettings: unary(
      logger,
      'billing/GetInvoicingSettings',
      async (req: billing.GetInvoicingSettingsRequest) => {
        const key = orgKeyOf(req);
        return invoicingSettingsMessage(await getInvoicingSettings(deps, key), secrets, key);
      },
    ),
    updateInvoicingSettings: unary(
      logger,
      'billing/UpdateInvoicingSettings',
      async (req: billing.UpdateInvoicingSettingsRequest) => {
        const key = orgKeyOf(req);
        const patch = decodeJson(invoicingSettingsPatch, req.patchJson);
        return invoicingSettingsMessage(await updateInvoicingSettings(deps, key, patch), secrets, key);
      },
    ),
    getSiteInvoicingSettings: unary(
      logger,
      'billing/GetSiteInvoicingSettings',
      async (req: billing.GetSiteInvoicingSettingsRequest) =>
        siteInvoicingMessage(await getSiteInvoicingSettings(deps, orgKeyOf(req), siteId(req.siteId))),
    ),
    updateSiteInvoicingSettings: unary(
      logger,
      'billing/UpdateSiteInvoicingSettings',
      async (req: billing.UpdateSiteInvoicingSettingsRequest) =>
        siteInvoicingMessage(
          await updateSiteInvoicingSettings(
            deps,
            orgKeyOf(req),
            siteId(req.siteId),
            decodeJson(siteInvoicingSettingsPatch, req.patchJson),
          ),
        ),
    ),
    verifySender: rpc.json('verifySender', async (_body, req) => verifySender(deps, orgKeyOf(req))),
    previewDocumentNumbers: rpc.json('previewDocumentNumbers', async (body, req) =>
      previewNumbers(deps, orgKeyOf(req), body),
    ),
    getPortalSettings: unary(logger, 'billing/GetPortalSettings', async (req: billing.GetPortalSettingsRequest) =>
      getPortalSettings(deps, orgKeyOf(req)),
    ),
    updatePortalSettings: unary(
      logger,
      'billing/UpdatePortalSettings',
      async (req: billing.UpdatePortalSettingsRequest) =>
        updatePortalSettings(deps, orgKeyOf(req), decodeJson(portalSettingsPatch, req.patchJson)),
    ),
    ...clientsHandlers(deps),
    ...invoicesHandlers(deps),
    ...paymentLinksHandlers(deps),
    ...emailHandlers(deps),
    ...creditNotesHandlers(deps),
    ...documentsHandlers(deps),
    ...einvoiceHandlers(deps),
    ...integrityHandlers(deps),
    ...dataIoHandlers(deps),
    ...portalHandlers(deps),
  };
  grpc.addService(billing.BillingServiceService, impl);
}
