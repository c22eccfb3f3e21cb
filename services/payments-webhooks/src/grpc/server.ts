import { paymentsWebhooks } from '@paymesh/proto';
import { describeMethod, unary, type GrpcServer } from '@paymesh/grpc';
import { pageOf, requireObjectId, tenantOf } from '@paymesh/core';
import { webhookPath, type ProviderDoc } from '../domain/provider';
import type { PaymentsDeps } from '../app/deps';
import { createProvider } from '../app/create-provider';
import { deleteProvider, getProvider, listProviders, toggleProvider } from '../app/manage-providers';
import { createPayment } from '../app/create-payment';
import { cancelPayment } from '../app/cancel-payment';
import { handleWebhook } from '../app/handle-webhook';

const SERVICE_VERSION = '0.2.0';

function toProvider(deps: PaymentsDeps, doc: ProviderDoc, webhookSecret?: string | null): paymentsWebhooks.Provider {
  return {
    id: doc.id,
    organizationId: doc.organizationId,
    type: doc.type,
    name: doc.name,
    enabled: doc.enabled,
    testMode: doc.mode === 'test',
    credentialHints: doc.credentialHints,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    webhookPath: `${deps.publicRootUrl}${webhookPath(doc.type, doc.id)}`,
    ...(webhookSecret ? { webhookSecret } : {}),
  };
}

export function registerPaymentsWebhooksService(grpc: GrpcServer, deps: PaymentsDeps): void {
  const { logger } = deps;
  const impl: paymentsWebhooks.PaymentsWebhooksServiceServer = {
    describe: describeMethod(logger, 'payments-webhooks', SERVICE_VERSION),

    createProvider: unary(
      logger,
      'payments-webhooks/CreateProvider',
      async (req: paymentsWebhooks.CreateProviderRequest) => {
        const { provider, webhookSecret } = await createProvider(deps, {
          ...tenantOf(req),
          type: req.type,
          name: req.name,
          credentialsJson: req.credentialsJson,
        });
        return toProvider(deps, provider, webhookSecret);
      },
    ),

    getProvider: unary(logger, 'payments-webhooks/GetProvider', async (req: paymentsWebhooks.ProviderRef) => {
      const { organizationId, mode } = tenantOf(req);
      const doc = await getProvider(deps, organizationId, mode, requireObjectId(req.id, 'id'));
      return toProvider(deps, doc);
    }),

    listProviders: unary(
      logger,
      'payments-webhooks/ListProviders',
      async (req: paymentsWebhooks.ListProvidersRequest) => {
        const { organizationId, mode } = tenantOf(req);
        const { page, limit } = pageOf(req, 'records');
        const res = await listProviders(deps, organizationId, mode, page, limit);
        return { items: res.items.map((p) => toProvider(deps, p)), total: res.total, page: res.page, limit: res.limit };
      },
    ),

    deleteProvider: unary(logger, 'payments-webhooks/DeleteProvider', async (req: paymentsWebhooks.ProviderRef) => {
      const { organizationId, mode } = tenantOf(req);
      await deleteProvider(deps, organizationId, mode, requireObjectId(req.id, 'id'));
      return {};
    }),

    toggleProvider: unary(
      logger,
      'payments-webhooks/ToggleProvider',
      async (req: paymentsWebhooks.ToggleProviderRequest) => {
        const { organizationId, mode } = tenantOf(req);
        const doc = await toggleProvider(deps, organizationId, mode, requireObjectId(req.id, 'id'), req.enabled);
        return toProvider(deps, doc);
      },
    ),

    createPayment: unary(
      logger,
      'payments-webhooks/CreatePayment',
      async (req: paymentsWebhooks.CreatePaymentRequest) => {
        const res = await createPayment(deps, {
          ...tenantOf(req),
          siteId: requireObjectId(req.siteId, 'siteId'),
          providerId: requireObjectId(req.providerId, 'providerId'),
          transactionId: requireObjectId(req.transactionId, 'transactionId'),
          amount: req.amount,
          currency: req.currency,
          description: req.description || null,
          buyerEmail: req.buyerEmail || null,
          returnUrl: req.returnUrl || null,
        });
        return {
          providerType: res.providerType,
          providerPaymentId: res.providerPaymentId,
          redirectUrl: res.redirectUrl ?? undefined,
          clientSecret: res.clientSecret ?? undefined,
        };
      },
    ),

    cancelPayment: unary(
      logger,
      'payments-webhooks/CancelPayment',
      async (req: paymentsWebhooks.CancelPaymentRequest) => {
        await cancelPayment(deps, {
          organizationId: requireObjectId(req.organizationId, 'organizationId'),
          providerId: requireObjectId(req.providerId, 'providerId'),
          transactionId: requireObjectId(req.transactionId, 'transactionId'),
        });
        return { cancelled: true };
      },
    ),

    handleWebhook: unary(
      logger,
      'payments-webhooks/HandleWebhook',
      async (req: paymentsWebhooks.HandleWebhookRequest) =>
        handleWebhook(deps, {
          providerType: req.providerType,
          providerId: req.providerId,
          rawBody: Buffer.from(req.rawBody),
          headers: lowerCased(req.headers),
        }),
    ),
  };
  grpc.addService(paymentsWebhooks.PaymentsWebhooksServiceService, impl);
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}
