import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, DomainError, NotSupportedError, ValidationError } from '@paymesh/core';
import { Subjects } from '@paymesh/contracts';
import type { PaymentsDeps } from '../src/app/deps';
import { createPayment } from '../src/app/create-payment';
import { cancelPayment } from '../src/app/cancel-payment';
import { handleWebhook } from '../src/app/handle-webhook';
import { webhookPath, type ProviderType } from '../src/domain/provider';
import { PAYMENTS, WEBHOOK_RECEIPTS } from '../src/store/collections';
import type { PaymentDoc } from '../src/domain/payment';
import {
  ProviderError,
  type CreatePaymentInput,
  type PaymentAdapter,
  type ProviderErrorKind,
} from '../src/providers/adapter';
import { objectId, paymentCmd, startHarness, testProvider, type Harness } from './harness';

/** What the contract needs from a provider's sandbox. */
export interface AdapterHarness {
  adapter: () => PaymentAdapter;
  /** Completes the buyer's payment at the provider (as the buyer would on the pay page). */
  pay(providerPaymentId: string): Promise<void>;
  /** An adapter of the same type whose credentials the provider rejects. */
  rejectedCredentials(): PaymentAdapter;
  /** An adapter pointed at an address where no provider answers. */
  unreachable(): PaymentAdapter;
  /**
   * False for providers with no way to cancel an open payment: cancelling is refused (CANCEL_REFUSED).
   * `'unapproved'` for providers the platform captures after the buyer's approval: an open payment
   * the buyer has not approved is accepted as cancelled without a call at the provider (it keeps
   * reporting the payment pending; nothing moves money without our capture).
   */
  cancels?: boolean | 'unapproved';
}

/** The metadata a payment started for `input` carries at the provider, as the platform names it. */
export function expectedMetadata(input: CreatePaymentInput): Record<string, string> {
  return {
    transaction_id: input.transactionId,
    organization_id: input.organizationId,
    site_id: input.siteId,
    provider_id: input.providerId,
  };
}

export function paymentInput(over: Partial<CreatePaymentInput> = {}): CreatePaymentInput {
  return {
    transactionId: objectId(),
    organizationId: objectId(),
    siteId: objectId(),
    providerId: objectId(),
    amount: 2599,
    currency: 'EUR',
    description: 'Order 42',
    buyerEmail: 'buyer@example.com',
    returnUrl: 'https://shop.example/return?tx=1',
    webhookUrl: 'http://127.0.0.1:9/hooks/test',
    ...over,
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

async function expectProviderError(promise: Promise<unknown>, kind: ProviderErrorKind): Promise<ProviderError> {
  const err = await failure(promise);
  expect(err).toBeInstanceOf(ProviderError);
  expect((err as ProviderError).providerKind).toBe(kind);
  return err as ProviderError;
}

/** The behaviour every payment adapter shows against its provider's sandbox. */
export function runAdapterContract(name: string, harness: () => AdapterHarness): void {
  describe(`payment adapter contract: ${name}`, () => {
    it('creates a payment and tells where to send the buyer', async () => {
      const input = paymentInput();
      const payment = await harness().adapter().createPayment(input);
      expect(payment.providerPaymentId).toBeTruthy();
      expect(payment.outcome).toBe('pending');
      expect(payment.redirectUrl).toMatch(/^https?:\/\//);
      const status = await harness().adapter().fetchStatus(payment.providerPaymentId);
      expect(status.outcome).toBe('pending');
      expect(status.metadata).toMatchObject(expectedMetadata(input));
    });

    it('is idempotent per transaction and refuses the same transaction with other parameters', async () => {
      const input = paymentInput();
      const first = await harness().adapter().createPayment(input);
      const again = await harness().adapter().createPayment(input);
      expect(again.providerPaymentId).toBe(first.providerPaymentId);
      expect(again.redirectUrl).toBe(first.redirectUrl);
      const err = await expectProviderError(
        harness()
          .adapter()
          .createPayment({ ...input, amount: input.amount + 1 }),
        'idempotency',
      );
      expect(err.kind).toBe('conflict');
    });

    it('cancels an open payment, and cancelling again still succeeds', async () => {
      const payment = await harness().adapter().createPayment(paymentInput());
      if (harness().cancels === false) {
        const refused = await failure(
          harness().adapter().cancelPayment(payment.providerPaymentId, `cancel-${payment.providerPaymentId}`),
        );
        expect(refused).toBeInstanceOf(ConflictError);
        expect((refused as ConflictError).code).toBe('CANCEL_REFUSED');
        expect((await harness().adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('pending');
        return;
      }
      if (harness().cancels === 'unapproved') {
        await harness().adapter().cancelPayment(payment.providerPaymentId, `cancel-${payment.providerPaymentId}`);
        await harness().adapter().cancelPayment(payment.providerPaymentId, `other-key-${payment.providerPaymentId}`);
        expect((await harness().adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('pending');
        return;
      }
      await harness().adapter().cancelPayment(payment.providerPaymentId, `cancel-${payment.providerPaymentId}`);
      expect((await harness().adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('cancelled');
      await harness().adapter().cancelPayment(payment.providerPaymentId, `cancel-${payment.providerPaymentId}`);
      await harness().adapter().cancelPayment(payment.providerPaymentId, `other-key-${payment.providerPaymentId}`);
      expect((await harness().adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('cancelled');
    });

    it('refuses to cancel a paid payment as already captured', async () => {
      const payment = await harness().adapter().createPayment(paymentInput());
      await harness().pay(payment.providerPaymentId);
      expect((await harness().adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('succeeded');
      const err = await failure(
        harness().adapter().cancelPayment(payment.providerPaymentId, `cancel-${payment.providerPaymentId}`),
      );
      expect(err).toBeInstanceOf(ConflictError);
      expect((err as ConflictError).code).toBe('PAYMENT_ALREADY_CAPTURED');
      expect((await harness().adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('succeeded');
    });

    it('reports typed failures: unknown payment, rejected credentials, unreachable provider', async () => {
      const missing = await expectProviderError(
        harness().adapter().fetchStatus('pi_doesNotExist000000000000'),
        'not_found',
      );
      expect(missing.kind).toBe('not_found');
      const auth = await expectProviderError(harness().rejectedCredentials().createPayment(paymentInput()), 'auth');
      expect(auth.code).toBe('PROVIDER_AUTH_FAILED');
      const down = await expectProviderError(harness().unreachable().createPayment(paymentInput()), 'retryable');
      expect(down.kind).toBe('unavailable');
    });

    it('answers refunds with NotSupported for now', async () => {
      const err = await failure(harness().adapter().refund('anything', 100, 'key'));
      expect(err).toBeInstanceOf(NotSupportedError);
      expect(err).toBeInstanceOf(DomainError);
    });
  });
}

/** A provider's webhook delivery as gateway-public hands it over. */
export interface Delivery {
  path: string;
  rawBody: Buffer;
  headers: Record<string, string>;
}

/** Provider-side actions on a payment, done with the sandbox account of a record. */
export interface WebhookHarness {
  type: ProviderType;
  /** payments-webhooks use cases on a fresh store, adapters pointed at the sandbox, `publicRootUrl` = the receiver. */
  deps: PaymentsDeps;
  /** Pending outbox records (what the commit enqueued). */
  outbox(): Promise<Array<{ subject: string; payload: unknown }>>;
  /**
   * After a record is created from `credentials`: sets its webhook endpoint at the provider where the
   * merchant does that by hand (the provider's dashboard).
   */
  onRecord?(credentials: Record<string, unknown>, webhookUrl: string): Promise<void>;
  /** Credentials of a fresh test-mode sandbox account (a new record is created from them). */
  credentials(): Record<string, unknown>;
  pay(credentials: Record<string, unknown>, providerPaymentId: string): Promise<void>;
  fail(credentials: Record<string, unknown>, providerPaymentId: string): Promise<void>;
  refund(credentials: Record<string, unknown>, providerPaymentId: string, amount: number): Promise<void>;
  /** Opens a dispute (chargeback) on a paid payment; answers its id. */
  openDispute(credentials: Record<string, unknown>, providerPaymentId: string): Promise<string>;
  closeDispute(credentials: Record<string, unknown>, disputeId: string, outcome: 'won' | 'lost'): Promise<void>;
  /** The delivery made unauthentic the way an attacker could (wrong signature, a payment of nobody's). */
  forge(delivery: Delivery): Delivery;
  /** False for providers with no way to cancel an open payment (see {@link AdapterHarness.cancels}). */
  cancels?: boolean | 'unapproved';
}

/** What a provider's tests give the webhook contract: its sandbox actions on the harness the contract starts. */
export type ProviderWebhookActions = Omit<WebhookHarness, 'deps' | 'outbox'>;

/** Records every webhook delivery the sandboxes send, per path. */
class Receiver {
  readonly received: Delivery[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        this.received.push({ path: req.url ?? '', rawBody: Buffer.concat(chunks), headers });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

type Report = { subject: string; data: Record<string, unknown> };

/**
 * The behaviour every provider shows end to end through the platform's use cases: deliveries its
 * sandbox really sends for create, pay, fail, cancel, refund and dispute open / lost / won are
 * verified and reported once; forged, replayed and cross-tenant deliveries change nothing.
 */
export function runWebhookContract(name: string, provider: (h: Harness) => ProviderWebhookActions): void {
  describe(`provider webhook contract: ${name}`, () => {
    const receiver = new Receiver();
    let harness: Harness | undefined;
    let h: WebhookHarness;
    /** Deliveries already handed to handleWebhook, per record path. */
    const consumed = new Map<string, number>();

    beforeAll(async () => {
      const started = await startHarness({ publicRootUrl: await receiver.start() });
      harness = started;
      h = { ...provider(started), deps: started.deps, outbox: () => started.store.outbox.pending(10_000) };
    });
    afterAll(async () => {
      await harness?.close();
      await receiver.stop();
    });

    async function record() {
      const credentials = h.credentials();
      const provider = await testProvider(h.deps, h.type, `${name} contract`, credentials);
      const path = webhookPath(provider.type, provider.id);
      await h.onRecord?.(credentials, `${h.deps.publicRootUrl}${path}`);
      return { provider, credentials, path };
    }

    async function started() {
      const r = await record();
      const transactionId = objectId();
      const payment = await createPayment(
        h.deps,
        paymentCmd(r.provider, { transactionId, amount: 5000, description: 'Contract order' }),
      );
      return { ...r, transactionId, providerPaymentId: payment.providerPaymentId };
    }

    async function reports(transactionId: string): Promise<Report[]> {
      return (await h.outbox())
        .map((e) => ({ subject: e.subject, data: (e.payload as { data: Record<string, unknown> }).data }))
        .filter((e) => e.data.transactionId === transactionId);
    }

    /** Hands the record's deliveries not handed yet to handleWebhook; answers how many it has received in all. */
    async function handNewDeliveries(rec: { provider: { id: string; type: string }; path: string }) {
      const all = receiver.received.filter((d) => d.path === rec.path);
      const from = consumed.get(rec.path) ?? 0;
      consumed.set(rec.path, all.length);
      for (const d of all.slice(from)) {
        await handleWebhook(h.deps, {
          providerType: rec.provider.type,
          providerId: rec.provider.id,
          rawBody: d.rawBody,
          headers: d.headers,
        });
      }
      return all.length;
    }

    /** Hands every new delivery of the record to handleWebhook until `done` holds for the reports. */
    async function settle(
      rec: { provider: { id: string; type: string }; path: string },
      transactionId: string,
      done: (r: Report[]) => boolean,
    ) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        await handNewDeliveries(rec);
        const r = await reports(transactionId);
        if (done(r)) return r;
        if (Date.now() > deadline) throw new Error(`no matching report for ${transactionId}: ${JSON.stringify(r)}`);
        await new Promise((res) => setTimeout(res, 25));
      }
    }

    /** Hands every new delivery of the record to handleWebhook until it has received `count` of them. */
    async function settleDeliveries(rec: { provider: { id: string; type: string }; path: string }, count: number) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const received = await handNewDeliveries(rec);
        if (received >= count) return;
        if (Date.now() > deadline) throw new Error(`only ${received} of ${count} deliveries for ${rec.path}`);
        await new Promise((res) => setTimeout(res, 25));
      }
    }

    const outcome = (o: string) => (r: Report[]) =>
      r.some((x) => x.subject === Subjects.paymentStatusReported && x.data.outcome === o);
    const dispute = (s: string) => (r: Report[]) =>
      r.some(
        (x) =>
          x.subject === Subjects.paymentAdjustmentReported &&
          (x.data.adjustment as { kind: string; status?: string }).status === s,
      );

    it('create + pay: the buyer pays and exactly one succeeded outcome is reported', async () => {
      const p = await started();
      await h.pay(p.credentials, p.providerPaymentId);
      const r = await settle(p, p.transactionId, outcome('succeeded'));
      expect(
        r.filter((x) => x.subject === Subjects.paymentStatusReported && x.data.outcome === 'succeeded'),
      ).toHaveLength(1);
      expect(r[0]?.data).toMatchObject({
        providerId: p.provider.id,
        providerPaymentId: p.providerPaymentId,
        providerType: h.type,
      });
    });

    it('fail: a failed payment reports failed', async () => {
      const p = await started();
      await h.fail(p.credentials, p.providerPaymentId);
      await settle(p, p.transactionId, outcome('failed'));
    });

    it('cancel: a cancelled payment reports cancelled', async () => {
      const p = await started();
      const cancel = cancelPayment(h.deps, {
        organizationId: p.provider.organizationId,
        providerId: p.provider.id,
        transactionId: p.transactionId,
      });
      if (h.cancels === false) {
        expect(await failure(cancel)).toBeInstanceOf(ConflictError);
        expect(await reports(p.transactionId)).toEqual([]);
        return;
      }
      if (h.cancels === 'unapproved') {
        await cancel;
        expect(
          await h.deps.store.collection<PaymentDoc>(PAYMENTS).findOne({ transactionId: p.transactionId }),
        ).toMatchObject({ status: 'cancelled' });
        // The buyer approves afterwards: the approval is received, and nothing is captured or reported.
        const before = receiver.received.filter((d) => d.path === p.path).length;
        await h.pay(p.credentials, p.providerPaymentId);
        await settleDeliveries(p, before + 1);
        expect(await reports(p.transactionId)).toEqual([]);
        expect(
          await h.deps.store.collection<PaymentDoc>(PAYMENTS).findOne({ transactionId: p.transactionId }),
        ).toMatchObject({ status: 'cancelled' });
        return;
      }
      await cancel;
      await settle(p, p.transactionId, outcome('cancelled'));
    });

    it('refund: a refund is reported with its amount', async () => {
      const p = await started();
      await h.pay(p.credentials, p.providerPaymentId);
      await settle(p, p.transactionId, outcome('succeeded'));
      await h.refund(p.credentials, p.providerPaymentId, 1500);
      const r = await settle(p, p.transactionId, (x) =>
        x.some((e) => e.subject === Subjects.paymentAdjustmentReported),
      );
      const refund = r.find((e) => e.subject === Subjects.paymentAdjustmentReported)?.data.adjustment;
      expect(refund).toMatchObject({ kind: 'refund', amount: 1500, currency: 'EUR', refundedTotal: 1500 });
    });

    it('dispute open, then lost; another dispute open, then won', async () => {
      for (const close of ['lost', 'won'] as const) {
        const p = await started();
        await h.pay(p.credentials, p.providerPaymentId);
        await settle(p, p.transactionId, outcome('succeeded'));
        const id = await h.openDispute(p.credentials, p.providerPaymentId);
        await settle(p, p.transactionId, dispute('open'));
        await h.closeDispute(p.credentials, id, close);
        const r = await settle(p, p.transactionId, dispute(close));
        expect(
          r
            .filter((x) => x.subject === Subjects.paymentAdjustmentReported)
            .map((x) => (x.data.adjustment as { status: string }).status),
        ).toEqual(['open', close]);
      }
    });

    it('forged, replayed and cross-tenant deliveries change nothing', async () => {
      const p = await started();
      await h.pay(p.credentials, p.providerPaymentId);
      await settle(p, p.transactionId, outcome('succeeded'));
      const real = receiver.received.filter((d) => d.path === p.path).at(-1)!;
      const before = await reports(p.transactionId);
      const receipts = () => h.deps.store.collection(WEBHOOK_RECEIPTS).count({ providerId: p.provider.id });
      const receiptsBefore = await receipts();

      const forged = h.forge(real);
      const err = await failure(
        handleWebhook(h.deps, {
          providerType: h.type,
          providerId: p.provider.id,
          rawBody: forged.rawBody,
          headers: forged.headers,
        }),
      );
      expect(err).toBeInstanceOf(ValidationError);
      expect(await receipts()).toBe(receiptsBefore);

      const replay = await handleWebhook(h.deps, {
        providerType: h.type,
        providerId: p.provider.id,
        rawBody: real.rawBody,
        headers: real.headers,
      });
      expect(replay.outcome).not.toBe('accepted');

      const other = await record();
      const cross = await failure(
        handleWebhook(h.deps, {
          providerType: h.type,
          providerId: other.provider.id,
          rawBody: real.rawBody,
          headers: real.headers,
        }),
      );
      expect(cross).toBeInstanceOf(ValidationError);
      expect(await h.deps.store.collection(WEBHOOK_RECEIPTS).count({ providerId: other.provider.id })).toBe(0);

      const malformed = await failure(
        handleWebhook(h.deps, {
          providerType: h.type,
          providerId: p.provider.id,
          rawBody: Buffer.from('\u0000{not a body'),
          headers: { 'content-type': 'application/json' },
        }),
      );
      expect(malformed).toBeInstanceOf(ValidationError);
      expect(await reports(p.transactionId)).toEqual(before);
    });
  });
}
