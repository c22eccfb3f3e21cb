import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';

// The mesh's own built libraries, loaded natively so error classes are the ones the gRPC adapter knows.
const nativeRequire = createRequire(import.meta.url);
const grpcLib: typeof import('../../libs/grpc/src') = nativeRequire('../../libs/grpc/dist/index.js');
const core: typeof import('../../libs/core/src') = nativeRequire('../../libs/core/dist/index.js');
const proto: typeof import('../../libs/proto/src') = nativeRequire('../../libs/proto/dist/index.js');

type Provider = import('../../libs/proto/src').paymentsWebhooks.Provider;
type CreatePaymentRequest = import('../../libs/proto/src').paymentsWebhooks.CreatePaymentRequest;
type CancelPaymentRequest = import('../../libs/proto/src').paymentsWebhooks.CancelPaymentRequest;

/**
 * Stand-in for payments-webhooks speaking its gRPC contract (GetProvider, ListProviders,
 * CreatePayment, CancelPayment), for mesh tests of checkout while the real provider adapters are
 * elsewhere. Records every payment call; `cancelResult` switches CancelPayment's answer.
 */
export class FakePaymentsWebhooks {
  readonly providers: Provider[] = [];
  readonly createCalls: CreatePaymentRequest[] = [];
  readonly cancelCalls: CancelPaymentRequest[] = [];
  cancelResult = true;
  private server: InstanceType<typeof grpcLib.GrpcServer> | undefined;

  addProvider(organizationId: string, type: string, opts: { enabled?: boolean; testMode?: boolean } = {}): Provider {
    const id = randomBytes(12).toString('hex');
    const p: Provider = {
      id,
      organizationId,
      type,
      name: `${type} test`,
      enabled: opts.enabled ?? true,
      testMode: opts.testMode ?? false,
      credentialHints: {},
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      webhookPath: `/hooks/${type}/${id}`,
    };
    this.providers.push(p);
    return p;
  }

  /** Listens on `address` (host:port), e.g. the port of the killed real service. */
  async start(address: string): Promise<void> {
    const logger = core.createLogger({ service: 'fake-payments-webhooks', level: 'silent' });
    const server = new grpcLib.GrpcServer(logger, 'payments-webhooks');
    const u = grpcLib.unary;
    const notHere = (name: string) =>
      u(logger, name, async (): Promise<never> => {
        throw new core.NotSupportedError(`${name} is not part of the fake`);
      });
    const find = (orgId: string, id: string, testMode: boolean) => {
      const p = this.providers.find((x) => x.id === id && x.organizationId === orgId && x.testMode === testMode);
      if (!p) throw new core.NotFoundError('provider not found');
      return p;
    };
    server.addService(proto.paymentsWebhooks.PaymentsWebhooksServiceService, {
      describe: u(logger, 'Describe', async () => ({ service: 'payments-webhooks', version: 'fake' })),
      createProvider: notHere('CreateProvider'),
      deleteProvider: notHere('DeleteProvider'),
      toggleProvider: notHere('ToggleProvider'),
      handleWebhook: notHere('HandleWebhook'),
      getProvider: u(logger, 'GetProvider', async (req: { organizationId: string; id: string; testMode: boolean }) =>
        find(req.organizationId, req.id, req.testMode),
      ),
      listProviders: u(logger, 'ListProviders', async (req: { organizationId: string; testMode: boolean }) => {
        const items = this.providers.filter((p) => p.organizationId === req.organizationId && p.testMode === req.testMode);
        return { items, total: items.length, page: 1, limit: 100 };
      }),
      createPayment: u(logger, 'CreatePayment', async (req: CreatePaymentRequest) => {
        this.createCalls.push(req);
        const p = find(req.organizationId, req.providerId, req.testMode);
        return {
          providerType: p.type,
          providerPaymentId: `pi_${req.transactionId}`,
          redirectUrl: `https://provider.test/pay/pi_${req.transactionId}`,
          clientSecret: `pi_${req.transactionId}_secret`,
        };
      }),
      cancelPayment: u(logger, 'CancelPayment', async (req: CancelPaymentRequest) => {
        this.cancelCalls.push(req);
        return { cancelled: this.cancelResult };
      }),
    });
    await server.listen(address);
    this.server = server;
  }

  async stop(): Promise<void> {
    await this.server?.shutdown(1000);
  }
}
