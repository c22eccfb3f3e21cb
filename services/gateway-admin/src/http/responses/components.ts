import type { ZodTypeAny } from 'zod';
import { apiKey, apiKeyPage, apiKeyWithToken } from './api-keys';
import { accessToken, loginCheck, signedIn, signInStarted } from './auth';
import { checkout, checkoutCreated, checkoutPage, checkoutWithTransactions } from './checkouts';
import { deleted } from './common';
import { cnameCheck, domain, domainPage } from './domains';
import { errorEnvelope } from '@paymesh/http';
import { member, memberAdded, memberPage } from './members';
import { invoicingSettings, license, ossThresholdStatus, portalSettings, taxSettings } from './organization';
import { provider, providerPage, providerTypes } from './providers';
import { site, siteInvoicingSettings, sitePage } from './sites';
import { organizationCreated } from './system';
import { taxRecordPage, taxRecordRebuildJobResponse, taxRecordResponse } from './tax-records';
import { taxDeleted, taxRate, taxRatePage, taxRatesReplaced, taxRule, taxRulePage, taxRulesPopulated } from './tax';
import {
  transaction,
  transactionDeleted,
  transactionDetail,
  transactionPage,
  transactionWithHistory,
} from './transactions';

/**
 * Named schemas of the document (`#/components/schemas/<Name>`): wherever a response or a part of
 * one is exactly one of these, the document refers to it by name, so generated clients get
 * `Site`, `TransactionPage`, `Error` types instead of anonymous copies. A new response schema
 * worth a name is added here.
 */
export const COMPONENTS: Readonly<Record<string, ZodTypeAny>> = {
  Error: errorEnvelope,
  Site: site,
  SitePage: sitePage,
  SiteInvoicingSettings: siteInvoicingSettings,
  CheckoutCreated: checkoutCreated,
  Checkout: checkout,
  CheckoutPage: checkoutPage,
  CheckoutWithTransactions: checkoutWithTransactions,
  Transaction: transaction,
  TransactionPage: transactionPage,
  TransactionWithHistory: transactionWithHistory,
  TransactionDetail: transactionDetail,
  TransactionDeleted: transactionDeleted,
  ApiKey: apiKey,
  ApiKeyPage: apiKeyPage,
  ApiKeyWithToken: apiKeyWithToken,
  Provider: provider,
  ProviderPage: providerPage,
  ProviderTypes: providerTypes,
  Deleted: deleted,
  Domain: domain,
  DomainPage: domainPage,
  CnameCheck: cnameCheck,
  Member: member,
  MemberPage: memberPage,
  MemberAdded: memberAdded,
  License: license,
  InvoicingSettings: invoicingSettings,
  TaxSettings: taxSettings,
  OssThresholdStatus: ossThresholdStatus,
  PortalSettings: portalSettings,
  TaxRecord: taxRecordResponse,
  TaxRecordPage: taxRecordPage,
  TaxRecordRebuildJob: taxRecordRebuildJobResponse,
  OrganizationCreated: organizationCreated,
  TaxRate: taxRate,
  TaxRatePage: taxRatePage,
  TaxRule: taxRule,
  TaxRulePage: taxRulePage,
  TaxDeleted: taxDeleted,
  TaxRatesReplaced: taxRatesReplaced,
  TaxRulesPopulated: taxRulesPopulated,
  SignInStarted: signInStarted,
  AccessToken: accessToken,
  SignedIn: signedIn,
  LoginCheck: loginCheck,
};
