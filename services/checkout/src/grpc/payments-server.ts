import { checkoutPayments } from '@paymesh/proto';
import { envelopeServer, unary, type GrpcServer } from '@paymesh/grpc';
import { checkoutRpc } from '@paymesh/contracts';
import { isObjectId, ValidationError } from '@paymesh/core';
import type { CheckoutStatus } from '../domain/checkout';
import { normalizeCurrency } from '../domain/iso-codes';
import type { Mode } from '../domain/site';
import type { PaymentsDeps } from '../app/payments-deps';
import { createCheckout } from '../app/create-checkout';
import { getCheckout, listCheckouts, transactionsOfCheckout } from '../app/get-checkout';
import { updateCheckout } from '../app/update-checkout';
import { getPublicCheckout } from '../app/public-checkout';
import { resolveBuyerHost } from '../app/resolve-buyer-host';
import { createHandoff } from '../app/create-handoff';
import { consumeHandoff } from '../app/consume-handoff';
import { createTransaction } from '../app/create-transaction';
import { getTransactionStatus } from '../app/transaction-status';
import { cancelTransaction } from '../app/cancel-transaction';
import { markTransactionPending } from '../app/mark-transaction-pending';
import { getTransaction, listTransactions } from '../app/get-transaction';
import { updateTransaction } from '../app/update-transaction';
import { deleteTransaction } from '../app/delete-transaction';
import { createManualTransaction } from '../app/create-manual-transaction';
import { previewCheckoutTax } from '../app/preview-checkout-tax';
import { getTransactionTax } from '../app/transaction-tax';
import { recalculateTransactionTax } from '../app/recalculate-transaction-tax';
import { resolveChargeback } from '../app/resolve-chargeback';
import { getCustomerHold, liftCustomerHold, listCustomerHolds } from '../app/customer-holds';
import { getRiskSettings, updateRiskSettings } from '../app/risk-settings';
import { getDashboard } from '../app/dashboard';
import {
  billingAddressIn,
  billingAddressOut,
  shippingAddressIn,
  lineItemsIn,
  toActionResponse,
  toCheckoutRecord,
  toCustomerHoldView,
  toTransactionRecord,
} from './payments-mapping';

function org(id: string): string {
  if (!isObjectId(id))
    throw new ValidationError('organizationId must be a 24-hex identifier', { field: 'organizationId' });
  return id;
}

const modeOf = (testMode: boolean): Mode => (testMode ? 'test' : 'live');
const opt = (v: string): string | undefined => (v === '' ? undefined : v);
const CHECKOUT_STATUSES: readonly CheckoutStatus[] = ['pending', 'completed', 'expired'];

function page(p: number, l: number): { page: number; limit: number } {
  return { page: Math.max(1, p || 1), limit: Math.min(100, Math.max(1, l || 10)) };
}

/** Registers the money-path RPCs: checkouts, handoffs and transactions. */
export function registerCheckoutPaymentsService(grpc: GrpcServer, deps: PaymentsDeps): void {
  const { logger } = deps;
  const rpc = <Req, Res>(name: string, fn: (req: Req) => Promise<Res>) => unary(logger, `checkout/${name}`, fn);
  const json = envelopeServer(logger, 'checkout', checkoutRpc, {}).json;
  const scope = (req: { organizationId: string; testMode: boolean }) => ({
    organizationId: org(req.organizationId),
    mode: modeOf(req.testMode),
  });
  const impl: checkoutPayments.CheckoutPaymentsServiceServer = {
    createCheckout: rpc('CreateCheckout', async (req: checkoutPayments.CreateCheckoutRequest) => {
      const doc = await createCheckout(deps, {
        organizationId: org(req.organizationId),
        mode: modeOf(req.testMode),
        siteId: req.siteId,
        amount: req.amount,
        currency: req.currency,
        email: opt(req.email),
        returnUrl: opt(req.returnUrl),
        cancelUrl: opt(req.cancelUrl),
        ipnUrl: opt(req.ipnUrl),
        externalReference: opt(req.externalReference),
        invoiceNumber: opt(req.invoiceNumber),
        clientId: opt(req.clientId),
        items: lineItemsIn(req.items),
        shippingAddress: shippingAddressIn(req.shippingAddress),
        metadata: req.metadata,
        expiresAt: opt(req.expiresAt),
        invoiceTaxJson: opt(req.invoiceTaxJson),
      });
      return toCheckoutRecord(doc, deps.clock.now());
    }),
    getCheckout: rpc('GetCheckout', async (req: checkoutPayments.CheckoutRef) => {
      const doc = await getCheckout(deps, org(req.organizationId), modeOf(req.testMode), req.id);
      return toCheckoutRecord(doc, deps.clock.now(), await transactionsOfCheckout(deps, doc));
    }),
    listCheckouts: rpc('ListCheckouts', async (req: checkoutPayments.ListCheckoutsRequest) => {
      if (req.status && !CHECKOUT_STATUSES.some((s) => s === req.status)) {
        throw new ValidationError('status must be pending, completed or expired', { field: 'status' });
      }
      const res = await listCheckouts(deps, {
        organizationId: org(req.organizationId),
        mode: modeOf(req.testMode),
        status: CHECKOUT_STATUSES.find((s) => s === req.status),
        siteId: opt(req.siteId),
        externalReference: opt(req.externalReference),
        invoiceNumber: opt(req.invoiceNumber),
        createdFrom: opt(req.createdFrom),
        createdTo: opt(req.createdTo),
        ...page(req.page, req.limit),
      });
      const now = deps.clock.now();
      return {
        items: res.items.map((d) => toCheckoutRecord(d, now)),
        total: res.total,
        page: res.page,
        limit: res.limit,
      };
    }),
    updateCheckout: rpc('UpdateCheckout', async (req: checkoutPayments.UpdateCheckoutRequest) => {
      const doc = await updateCheckout(
        deps,
        { organizationId: org(req.organizationId), mode: modeOf(req.testMode), id: req.id },
        {
          expiresAt: req.expiresAt,
          returnUrl: req.returnUrl,
          cancelUrl: req.cancelUrl,
          ipnUrl: req.ipnUrl,
          metadata: req.metadata?.entries,
        },
      );
      return toCheckoutRecord(doc, deps.clock.now());
    }),
    listTransactions: rpc('ListTransactions', async (req: checkoutPayments.ListTransactionsRequest) => {
      const currency = req.currency ? normalizeCurrency(req.currency) : undefined;
      if (req.currency && !currency)
        throw new ValidationError('currency must be an ISO 4217 currency code', { field: 'currency' });
      const res = await listTransactions(deps, {
        organizationId: org(req.organizationId),
        mode: modeOf(req.testMode),
        statuses: req.statuses,
        currency,
        createdFrom: opt(req.createdFrom),
        createdTo: opt(req.createdTo),
        siteIds: req.siteIds,
        providerIds: req.providerIds,
        externalReference: opt(req.externalReference),
        email: opt(req.email),
        ids: req.ids,
        ...page(req.page, req.limit),
      });
      return { items: res.items.map(toTransactionRecord), total: res.total, page: res.page, limit: res.limit };
    }),
    getTransaction: rpc('GetTransaction', async (req: checkoutPayments.TransactionAdminRef) =>
      toTransactionRecord(await getTransaction(deps, org(req.organizationId), modeOf(req.testMode), req.id)),
    ),
    updateTransaction: rpc('UpdateTransaction', async (req: checkoutPayments.UpdateTransactionRequest) => {
      const doc = await updateTransaction(
        deps,
        { organizationId: org(req.organizationId), mode: modeOf(req.testMode), id: req.id },
        {
          metadata: req.metadata?.entries,
          notes: req.notes,
          externalReference: req.externalReference,
          status: req.status,
          reason: opt(req.reason),
        },
      );
      return toTransactionRecord(doc);
    }),
    deleteTransaction: rpc('DeleteTransaction', async (req: checkoutPayments.TransactionAdminRef) => {
      await deleteTransaction(deps, {
        organizationId: org(req.organizationId),
        mode: modeOf(req.testMode),
        id: req.id,
      });
      return { id: req.id, deleted: true };
    }),
    createManualTransaction: rpc(
      'CreateManualTransaction',
      async (req: checkoutPayments.CreateManualTransactionRequest) => {
        const doc = await createManualTransaction(deps, {
          organizationId: org(req.organizationId),
          mode: modeOf(req.testMode),
          siteId: req.siteId,
          amount: req.amount,
          currency: req.currency,
          externalReference: opt(req.externalReference),
          invoiceNumber: opt(req.invoiceNumber),
          status: req.status,
          reason: req.reason,
          email: opt(req.email),
          clientId: opt(req.clientId),
          ipnUrl: opt(req.ipnUrl),
          metadata: req.metadata,
        });
        return toTransactionRecord(doc);
      },
    ),
    getTransactionTax: rpc('GetTransactionTax', async (req: checkoutPayments.TransactionAdminRef) => ({
      json: JSON.stringify(
        await getTransactionTax(deps, {
          organizationId: org(req.organizationId),
          mode: modeOf(req.testMode),
          id: req.id,
        }),
      ),
    })),
    recalculateTransactionTax: rpc(
      'RecalculateTransactionTax',
      async (req: checkoutPayments.RecalculateTransactionTaxRequest) => ({
        json: JSON.stringify(
          await recalculateTransactionTax(
            deps,
            { organizationId: org(req.organizationId), mode: modeOf(req.testMode), id: req.id },
            { recheckVatId: req.recheckVatId },
          ),
        ),
      }),
    ),
    resolveChargeback: rpc('ResolveChargeback', async (req: checkoutPayments.ResolveChargebackRequest) =>
      toTransactionRecord(
        await resolveChargeback(
          deps,
          { ...scope(req), id: req.id },
          {
            chargebackId: req.chargebackId,
            status: req.status,
            reason: opt(req.reason) ?? null,
            actor: req.actor || 'unknown',
          },
        ),
      ),
    ),
    listCustomerHolds: json('listCustomerHolds', async (query, req) => {
      const res = await listCustomerHolds(deps, scope(req), query);
      return { items: res.items.map(toCustomerHoldView), total: res.total, page: res.page, limit: res.limit };
    }),
    getCustomerHold: json('getCustomerHold', async (_body, req) =>
      toCustomerHoldView(await getCustomerHold(deps, { ...scope(req), id: req.id })),
    ),
    liftCustomerHold: json('liftCustomerHold', async (input, req) => {
      return toCustomerHoldView(
        await liftCustomerHold(
          deps,
          { ...scope(req), id: req.id },
          { actor: req.actor || 'unknown', reason: input.reason ?? null },
        ),
      );
    }),
    getDashboard: json('getDashboard', async (query, req) => getDashboard(deps, scope(req), query)),
    getRiskSettings: json('getRiskSettings', async (_body, req) => getRiskSettings(deps, scope(req))),
    updateRiskSettings: json('updateRiskSettings', async (patch, req) => updateRiskSettings(deps, scope(req), patch)),
    previewCheckoutTax: rpc('PreviewCheckoutTax', async (req: checkoutPayments.PreviewCheckoutTaxRequest) => {
      const a = req.billingAddress;
      const calc = await previewCheckoutTax(deps, {
        sessionPublicId: req.sessionPublicId,
        browserOrigin: req.browserOrigin,
        billingAddress: a ? { country: a.country, postcode: a.postcode, vatId: a.vatId } : undefined,
        shippingAddress: shippingAddressIn(req.shippingAddress),
      });
      return { json: JSON.stringify(calc) };
    }),
    resolveBuyerHost: rpc('ResolveBuyerHost', async (req: checkoutPayments.ResolveBuyerHostRequest) => ({
      tenants: (await resolveBuyerHost(deps, req.host)).map((t) => ({
        organizationId: t.organizationId,
        testMode: t.mode === 'test',
        source: t.source,
      })),
    })),
    getPublicCheckout: rpc('GetPublicCheckout', async (req: checkoutPayments.GetPublicCheckoutRequest) => {
      const v = await getPublicCheckout(deps, req.sessionPublicId, req.browserOrigin);
      return {
        id: v.id,
        currency: v.currency,
        amount: v.amount,
        status: v.status,
        lineItems: v.lineItems,
        providers: v.providers,
        brandingLogo: v.branding.logo ?? '',
        brandingPrimaryColor: v.branding.primaryColor ?? '',
        expiresAt: v.expiresAt,
        vatIdValidation: v.vatIdValidation,
      };
    }),
    createHandoff: rpc('CreateHandoff', async (req: checkoutPayments.CreateHandoffRequest) => {
      const res = await createHandoff(deps, {
        sessionPublicId: req.sessionPublicId,
        providerId: req.providerId,
        billingAddress: billingAddressIn(req.billingAddress),
        browserOrigin: req.browserOrigin,
      });
      return { handoffToken: res.token, expiresInSeconds: res.expiresInSeconds };
    }),
    consumeHandoff: rpc('ConsumeHandoff', async (req: checkoutPayments.ConsumeHandoffRequest) => {
      const res = await consumeHandoff(deps, {
        sessionPublicId: req.sessionPublicId,
        token: req.handoffToken,
        browserOrigin: req.browserOrigin,
      });
      return {
        providerId: res.providerId,
        billingAddress: billingAddressOut(res.billingAddress),
        createdAt: res.createdAt,
      };
    }),
    createTransaction: rpc('CreateTransaction', async (req: checkoutPayments.CreateTransactionRequest) => {
      const res = await createTransaction(deps, {
        sessionPublicId: req.sessionPublicId,
        providerId: req.providerId,
        billingAddress: billingAddressIn(req.billingAddress),
        shippingAddress: shippingAddressIn(req.shippingAddress),
        browserOrigin: req.browserOrigin,
      });
      return {
        transactionId: res.transaction.id,
        status: res.transaction.status,
        providerType: res.providerType,
        redirectUrl: res.redirectUrl ?? '',
        clientSecret: res.clientSecret ?? '',
      };
    }),
    getTransactionStatus: rpc('GetTransactionStatus', async (req: checkoutPayments.TransactionRef) => {
      const v = await getTransactionStatus(deps, req.transactionId);
      return {
        ...v,
        externalReference: v.externalReference ?? '',
        returnUrl: v.returnUrl ?? '',
        cancelUrl: v.cancelUrl ?? '',
      };
    }),
    cancelTransaction: rpc('CancelTransaction', async (req: checkoutPayments.TransactionRef) =>
      toActionResponse(
        await cancelTransaction(deps, {
          transactionId: req.transactionId,
          browserOrigin: req.browserOrigin,
          sessionPublicId: req.sessionPublicId,
        }),
      ),
    ),
    markTransactionPending: rpc('MarkTransactionPending', async (req: checkoutPayments.TransactionRef) =>
      toActionResponse(
        await markTransactionPending(deps, {
          transactionId: req.transactionId,
          browserOrigin: req.browserOrigin,
          sessionPublicId: req.sessionPublicId,
        }),
      ),
    ),
  };
  grpc.addService(checkoutPayments.CheckoutPaymentsServiceService, impl);
}
