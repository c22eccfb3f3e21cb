import type { AnyRoute } from '../route-table';
import { organizationApiKeyRoutes, systemApiKeyRoutes } from './api-keys';
import { memberRoutes } from './members';
import { domainRoutes } from './domains';
import { licenseRoutes } from './license';
import { organizationSettingsRoutes } from './organization-settings';
import { providerRoutes } from './providers';
import { siteRoutes } from './sites';
import { systemRoutes } from './system';
import { checkoutRoutes } from './checkouts';
import { transactionRoutes } from './transactions';
import { invoiceTaxRoutes } from './invoices-tax';
import { invoiceRoutes } from './invoices';
import { creditNoteRoutes } from './credit-notes';
import { taxRateRoutes } from './tax-rates';
import { taxRuleRoutes } from './tax-rules';
import { taxRecordRoutes } from './tax-records';
import { taxReportRoutes } from './tax-reports';
import { invoicePaymentLinkRoutes } from './invoice-payment-links';
import { clientRoutes } from './clients';
import { documentEmailRoutes } from './document-email';
import { customerHoldRoutes, riskSettingsRoutes } from './customer-holds';
import { documentPdfRoutes } from './document-pdf';
import { einvoiceRoutes } from './einvoices';
import { dashboardRoutes } from './dashboard';
import { dataIoRoutes } from './data-io';
import { accountingExportRoutes } from './accounting-export';
import { recurringRoutes } from './recurring';
import { portalLinkRoutes } from './portal-links';
import { auditEventRoutes } from './audit-events';
import { documentIntegrityRoutes } from './document-integrity';

/** The settings route definitions depend on (a subset of the gateway's config). */
export interface RouteSettings {
  DEFAULT_LICENSE_STATE: 'ACTIVE' | 'BLOCKED' | 'NOT_ACTIVATED';
}

/**
 * Every row of the Admin route table. main.ts serves exactly this list, and the mesh tests walk
 * it, so a route added here is enforced, documented and tested for 401/403 automatically.
 */
export function allRoutes(settings: RouteSettings): AnyRoute[] {
  return [
    ...systemRoutes(settings.DEFAULT_LICENSE_STATE),
    ...systemApiKeyRoutes,
    ...organizationApiKeyRoutes,
    ...memberRoutes,
    ...siteRoutes,
    ...providerRoutes,
    ...domainRoutes,
    ...organizationSettingsRoutes,
    ...riskSettingsRoutes,
    ...licenseRoutes,
    ...checkoutRoutes,
    ...transactionRoutes,
    ...customerHoldRoutes,
    ...taxRateRoutes,
    ...taxRuleRoutes,
    ...invoiceTaxRoutes,
    ...recurringRoutes,
    ...invoiceRoutes,
    ...invoicePaymentLinkRoutes,
    ...creditNoteRoutes,
    ...auditEventRoutes,
    ...documentIntegrityRoutes,
    ...taxRecordRoutes,
    ...clientRoutes,
    ...documentEmailRoutes,
    ...documentPdfRoutes,
    ...einvoiceRoutes,
    ...portalLinkRoutes,
    ...taxReportRoutes,
    ...dashboardRoutes,
    ...dataIoRoutes,
    ...accountingExportRoutes,
  ];
}
