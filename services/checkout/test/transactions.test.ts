import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/kit';
import { ConflictError, NotFoundError, UnavailableError, ValidationError, newObjectId } from '@paymesh/core';
import type { PaymentStatusReported } from '@paymesh/contracts';
import { createCheckout } from '../src/app/create-checkout';
import { getCheckout } from '../src/app/get-checkout';
import { createTransaction } from '../src/app/create-transaction';
import { getTransactionStatus } from '../src/app/transaction-status';
import { cancelTransaction } from '../src/app/cancel-transaction';
import { markTransactionPending } from '../src/app/mark-transaction-pending';
import { applyPaymentStatus } from '../src/app/apply-payment-status';
import { getTransaction, LIST_COUNT_BOUND, listTransactions } from '../src/app/get-transaction';
import { updateTransaction } from '../src/app/update-transaction';
import { deleteTransaction } from '../src/app/delete-transaction';
import { createManualTransaction } from '../src/app/create-manual-transaction';
import { recordLicenseState } from '../src/app/record-license';
import type { CheckoutDoc } from '../src/domain/checkout';
import type { TransactionDoc } from '../src/domain/transaction';
import { CHECKOUTS, TRANSACTIONS } from '../src/store/collections';
import type { ProviderInfo } from '../src/app/payments-port';
import { BUYER_BILLING, openHarness, type Harness } from './harness';

describe('transactions on PostgreSQL', () => {
  let h: Harness;
  let org: { organizationId: string; siteId: string };
  let provider: ProviderInfo;

  beforeAll(async () => {
    h = await openHarness();
    org = await h.site();
    provider = h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_a' });
  });
  afterAll(async () => h?.close());

  const checkout = (extra: Record<string, unknown> = {}): Promise<CheckoutDoc> =>
    h.checkout(org, {
      externalReference: 'order-77',
      returnUrl: 'https://shop.example/thanks/{transactionId}',
      ipnUrl: 'https://shop.example/ipn',
      ...extra,
    });
  /** The pending transaction of a checkout, once its creation is under way. */
  const waitForOpen = (checkoutId: string): Promise<TransactionDoc> =>
    waitFor(() => h.deps.store.collection<TransactionDoc>(TRANSACTIONS).findOne({ checkoutId, status: 0 }), {
      timeoutMs: 2000,
      what: `the open transaction of checkout ${checkoutId}`,
    });
  /** A buyer's request about one of its transactions (cancel, mark pending), from the session. */
  const asBuyer = (tx: { id: string; sessionPublicId?: string | null }) => ({
    transactionId: tx.id,
    browserOrigin: '',
    sessionPublicId: tx.sessionPublicId ?? '',
  });
  /** The transaction a checkout's payment attempt created. */
  const transactionOf = async (c: CheckoutDoc) =>
    (
      await listTransactions(h.deps, { organizationId: org.organizationId, mode: 'live', page: 1, limit: 100 })
    ).items.find((t) => t.checkoutId === c.id);
  /** Runs `run` while the provider refuses to start payments with `err`. */
  const whileCreateFails = async <T>(err: Error, run: () => Promise<T>): Promise<T> => {
    h.payments.onCreate = async () => {
      throw err;
    };
    try {
      return await run();
    } finally {
      h.payments.onCreate = FakeDefaults.create(h);
    }
  };
  const pay = (c: CheckoutDoc, providerId = provider.id) =>
    createTransaction(h.deps, {
      sessionPublicId: c.sessionPublicId,
      providerId,
      billingAddress: BUYER_BILLING,
      browserOrigin: '',
    });
  const report = (
    transactionId: string,
    outcome: PaymentStatusReported['outcome'],
    providerEventId: string,
  ): PaymentStatusReported => ({
    organizationId: org.organizationId,
    siteId: org.siteId,
    transactionId,
    providerId: provider.id,
    providerType: 'provider_a',
    providerPaymentId: `pi_${transactionId}`,
    outcome,
    providerEventId,
    providerEventType: outcome === 'succeeded' ? 'payment_intent.succeeded' : 'payment_intent.payment_failed',
    occurredAt: '2026-03-01T12:01:00.000Z',
  });

  it('creates a pending transaction, announces status 0 once and starts the provider payment', async () => {
    const c = await checkout();
    const res = await pay(c);
    const tx = res.transaction;
    expect(tx.status).toBe(0);
    expect(res.redirectUrl).toBe(`https://provider.example/pay/${tx.id}`);
    expect(res.clientSecret).toBe(`secret_${tx.id}`);
    expect(tx.providerPaymentId).toBe(`pi_${tx.id}`);
    expect(tx.providerPayment.state).toBe('created');
    const call = h.payments.createCalls.find((x) => x.transactionId === tx.id);
    expect(call).toMatchObject({
      organizationId: org.organizationId,
      siteId: org.siteId,
      providerId: provider.id,
      amount: 4200,
      currency: 'EUR',
      buyerEmail: 'ada@example.com',
      // The provider returns the buyer to the hosted page, which follows the merchant's returnUrl once final.
      returnUrl: `${c.paymentUrl}?transactionId=${tx.id}`,
      testMode: false,
    });
    expect(await h.statusEvents(tx.id)).toEqual([
      {
        organizationId: org.organizationId,
        siteId: org.siteId,
        transactionId: tx.id,
        mode: 'live',
        status: 0,
        previousStatus: null,
        subState: null,
        externalReference: 'order-77',
        ipnUrl: 'https://shop.example/ipn',
        sequence: 1,
        changedAt: tx.createdAt,
        // What the tax ledger records from the event alone: the transaction's tax as stored.
        amount: 4200,
        currency: 'EUR',
        tax: tx.tax ?? null,
        taxInput: tx.taxInput ?? null,
        // Billing finds the invoice a transaction pays from these (none for this checkout).
        checkoutId: c.id,
        invoiceId: null,
        // Refunds recorded so far (billing credits a status 3 only beyond them).
        refunds: [],
      },
    ]);
  });

  it('resumes the open transaction on a repeat with the same provider, refuses another provider', async () => {
    const c = await checkout();
    const first = await pay(c);
    const again = await pay(c);
    expect(again.transaction.id).toBe(first.transaction.id);
    expect(h.payments.createCalls.filter((x) => x.transactionId === first.transaction.id)).toHaveLength(2);
    const other = h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_c' });
    await expect(pay(c, other.id)).rejects.toMatchObject({ httpStatus: 409, code: 'TRANSACTION_ALREADY_OPEN' });
    // Provider types work as provider IDs (the public view lists types).
    expect((await pay(c, 'provider_a')).transaction.id).toBe(first.transaction.id);
    expect(await h.statusEvents(first.transaction.id)).toHaveLength(1);
  });

  it('keeps one open transaction per session under concurrent submissions', async () => {
    const c = await checkout();
    const results = await Promise.all(Array.from({ length: 5 }, () => pay(c)));
    expect(new Set(results.map((r) => r.transaction.id)).size).toBe(1);
  });

  it('fails the transaction when the provider refuses to start the payment (422, status 2, event)', async () => {
    const c = await checkout();
    await whileCreateFails(new ValidationError('currency not supported by this account'), () =>
      expect(pay(c)).rejects.toMatchObject({ httpStatus: 422, code: 'PAYMENT_START_FAILED' }),
    );
    const tx = await transactionOf(c);
    expect(tx).toMatchObject({
      status: 2,
      providerPayment: { state: 'failed', error: 'currency not supported by this account' },
      openCheckoutId: null,
    });
    expect((await h.statusEvents(tx!.id)).map((e) => [e.previousStatus, e.status, e.sequence])).toEqual([
      [null, 0, 1],
      [0, 2, 2],
    ]);
    // The session is free again: a new attempt creates a new transaction.
    const retry = await pay(c);
    expect(retry.transaction.id).not.toBe(tx!.id);
  });

  it('keeps the transaction pending when the outcome is unknown (503), and a retry resumes it', async () => {
    const c = await checkout();
    const txId = await whileCreateFails(
      new UnavailableError('payments-webhooks unavailable: connection refused'),
      async () => {
        const err = await pay(c).catch((e: unknown) => e);
        expect(err).toMatchObject({ httpStatus: 503, code: 'PAYMENT_START_PENDING' });
        const id = /transaction ([0-9a-f]{24})/.exec((err as Error).message)![1]!;
        expect(await getTransaction(h.deps, org.organizationId, 'live', id)).toMatchObject({
          status: 0,
          providerPayment: { state: 'indeterminate', error: 'payments-webhooks unavailable: connection refused' },
        });
        return id;
      },
    );
    const resumed = await pay(c);
    expect(resumed.transaction.id).toBe(txId);
    expect(resumed.transaction.providerPayment.state).toBe('created');
    expect(await h.statusEvents(txId)).toHaveLength(1);
  });

  it('keeps the transaction pending when the provider reports a conflicting existing payment', async () => {
    const c = await checkout();
    await whileCreateFails(new ConflictError('payment exists with other terms', { code: 'PAYMENT_CONFLICT' }), () =>
      expect(pay(c)).rejects.toMatchObject({ httpStatus: 503, code: 'PAYMENT_START_PENDING' }),
    );
    const tx = await transactionOf(c);
    expect(tx).toMatchObject({
      status: 0,
      providerPayment: { state: 'indeterminate', error: 'payment exists with other terms' },
    });
  });

  it('refuses expired, completed, blocked and foreign-origin sessions, and bad input', async () => {
    const expired = await checkout({ expiresAt: '2026-03-01T12:05:00Z' });
    h.clock.advance(5 * 60_000);
    await expect(pay(expired)).rejects.toMatchObject({ httpStatus: 409, code: 'CHECKOUT_EXPIRED' });
    h.clock.set('2026-03-01T12:00:00.000Z');
    const c = await checkout();
    await expect(
      createTransaction(h.deps, { sessionPublicId: c.sessionPublicId, providerId: provider.id, browserOrigin: '' }),
    ).rejects.toMatchObject({
      httpStatus: 400,
      field: 'billingAddress',
    });
    await expect(
      createTransaction(h.deps, {
        sessionPublicId: c.sessionPublicId,
        providerId: provider.id,
        billingAddress: { ...BUYER_BILLING, country: 'Germany' },
        browserOrigin: '',
      }),
    ).rejects.toMatchObject({ httpStatus: 400, field: 'billingAddress.country' });
    await expect(pay(c, 'provider_z')).rejects.toMatchObject({ httpStatus: 400, field: 'providerId' });
    await expect(
      createTransaction(h.deps, {
        sessionPublicId: c.sessionPublicId,
        providerId: provider.id,
        billingAddress: BUYER_BILLING,
        browserOrigin: 'https://evil.example',
      }),
    ).rejects.toMatchObject({ httpStatus: 403 });
    const blocked = await h.site();
    h.payments.addProvider({ organizationId: blocked.organizationId });
    const bc = await createCheckout(h.deps, {
      ...blocked,
      mode: 'live',
      amount: 1,
      currency: 'EUR',
      externalReference: 'b',
    });
    await recordLicenseState(h.deps, {
      organizationId: blocked.organizationId,
      licenseState: 'BLOCKED',
      at: '2026-03-01T00:00:00.000Z',
    });
    await expect(
      createTransaction(h.deps, {
        sessionPublicId: bc.sessionPublicId,
        providerId: 'provider_a',
        billingAddress: BUYER_BILLING,
        browserOrigin: '',
      }),
    ).rejects.toMatchObject({ httpStatus: 403, code: 'LICENSE_BLOCKED' });
  });

  describe('provider outcomes', () => {
    it('completes the transaction once; replays and repeats change nothing; the session is paid', async () => {
      const c = await checkout();
      const tx = (await pay(c)).transaction;
      expect(await applyPaymentStatus(h.deps, report(tx.id, 'succeeded', 'evt_1'))).toBe('applied');
      expect(await applyPaymentStatus(h.deps, report(tx.id, 'succeeded', 'evt_1'))).toBe('duplicate');
      expect(await applyPaymentStatus(h.deps, report(tx.id, 'succeeded', 'evt_2'))).toBe('unchanged');
      // A failure reported after the capture is stale: rejected, never applied.
      expect(await applyPaymentStatus(h.deps, report(tx.id, 'failed', 'evt_3'))).toBe('rejected');
      const stored = await getTransaction(h.deps, org.organizationId, 'live', tx.id);
      expect(stored.status).toBe(1);
      expect(stored.statusHistory.map((e) => [e.from, e.to, e.trigger, e.providerEventId])).toEqual([
        [null, 0, 'create', null],
        [0, 1, 'provider_succeeded', 'evt_1'],
      ]);
      const events = await h.statusEvents(tx.id);
      expect(events.map((e) => [e.previousStatus, e.status, e.sequence])).toEqual([
        [null, 0, 1],
        [0, 1, 2],
      ]);
      const paid = await getCheckout(h.deps, org.organizationId, 'live', c.id);
      expect(paid).toMatchObject({ status: 'completed', completedTransactionId: tx.id });
      await expect(pay(c)).rejects.toMatchObject({ httpStatus: 409, code: 'CHECKOUT_COMPLETED' });
      expect(await getTransactionStatus(h.deps, tx.id)).toEqual({
        status: 1,
        externalReference: 'order-77',
        amount: 4200,
        currency: 'EUR',
        returnUrl: `https://shop.example/thanks/${tx.id}`,
        createdAt: tx.createdAt,
      });
    });

    it('applies concurrent deliveries of one event exactly once', async () => {
      const tx = (await pay(await checkout())).transaction;
      const results = await Promise.all(
        Array.from({ length: 6 }, () => applyPaymentStatus(h.deps, report(tx.id, 'succeeded', 'evt_same'))),
      );
      expect(results.filter((r) => r === 'applied')).toHaveLength(1);
      expect((await h.statusEvents(tx.id)).filter((e) => e.status === 1)).toHaveLength(1);
    });

    it('drops reports that do not belong to the transaction', async () => {
      const tx = (await pay(await checkout())).transaction;
      expect(
        await applyPaymentStatus(h.deps, { ...report(tx.id, 'succeeded', 'e'), organizationId: newObjectId() }),
      ).toBe('rejected');
      expect(await applyPaymentStatus(h.deps, { ...report(tx.id, 'succeeded', 'e'), providerId: newObjectId() })).toBe(
        'rejected',
      );
      expect(
        await applyPaymentStatus(h.deps, { ...report(tx.id, 'succeeded', 'e'), providerPaymentId: 'pi_other' }),
      ).toBe('rejected');
      expect(await applyPaymentStatus(h.deps, report(newObjectId(), 'succeeded', 'e'))).toBe('rejected');
      expect((await getTransaction(h.deps, org.organizationId, 'live', tx.id)).status).toBe(0);
    });

    it('lets a success after a failed attempt complete the transaction', async () => {
      const tx = (await pay(await checkout())).transaction;
      await applyPaymentStatus(h.deps, report(tx.id, 'failed', 'f1'));
      await applyPaymentStatus(h.deps, report(tx.id, 'succeeded', 's1'));
      expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0, 2, 1]);
    });

    it('opens a buyer transaction on a subject of its own; its changes are status_changed', async () => {
      const tx = (await pay(await checkout())).transaction;
      await applyPaymentStatus(h.deps, report(tx.id, 'succeeded', 'subjects-1'));
      const mine = (await h.pending())
        .filter((e) => JSON.stringify(e.payload).includes(tx.id) && e.subject.startsWith('checkout.transaction.'))
        .map((e) => {
          const d = (e.payload as { data: { status: number; sequence: number } }).data;
          return [e.subject, d.status, d.sequence];
        });
      // billing, tax and notifications-ipn subscribe to status_changed only: none acts on the
      // pending start, so none is handed it.
      expect(mine).toEqual([
        ['checkout.transaction.opened', 0, 1],
        ['checkout.transaction.status_changed', 1, 2],
      ]);
    });
  });

  describe('cancel and mark-pending', () => {
    it('cancels through the provider, then announces -2; a repeat answers canceled', async () => {
      const c = await checkout();
      const tx = (await pay(c)).transaction;
      const canceled = await cancelTransaction(h.deps, asBuyer(tx));
      expect(canceled.status).toBe(-2);
      expect(h.payments.cancelCalls.filter((x) => x.transactionId === tx.id)).toEqual([
        { organizationId: org.organizationId, providerId: provider.id, transactionId: tx.id },
      ]);
      expect((await cancelTransaction(h.deps, asBuyer(tx))).status).toBe(-2);
      expect(h.payments.cancelCalls.filter((x) => x.transactionId === tx.id)).toHaveLength(1);
      expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0, -2]);
      // The session may take a new attempt.
      expect((await pay(c)).transaction.id).not.toBe(tx.id);
    });

    it('acts only for a caller holding the checkout session (transaction IDs are guessable)', async () => {
      const tx = (await pay(await checkout())).transaction;
      const other = await checkout();
      for (const sessionPublicId of ['', other.sessionPublicId, `${tx.sessionPublicId}x`]) {
        await expect(
          cancelTransaction(h.deps, { transactionId: tx.id, browserOrigin: '', sessionPublicId }),
        ).rejects.toMatchObject({ httpStatus: 404 });
        await expect(
          markTransactionPending(h.deps, { transactionId: tx.id, browserOrigin: '', sessionPublicId }),
        ).rejects.toMatchObject({ httpStatus: 404 });
      }
      expect((await getTransaction(h.deps, org.organizationId, 'live', tx.id)).status).toBe(0);
      expect(h.payments.cancelCalls.filter((x) => x.transactionId === tx.id)).toEqual([]);
    });

    it('refuses to cancel while the provider payment is being started, and never hands out a canceled payment', async () => {
      const c = await checkout();
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const normal = h.payments.onCreate;
      h.payments.onCreate = async (input) => {
        await gate;
        return normal(input);
      };
      try {
        const paying = pay(c);
        const tx = await waitForOpen(c.id);
        // Not at the provider yet: "not found" there must not be taken for "nothing to cancel".
        h.payments.onCancel = async () => {
          throw new NotFoundError('no payment for this transaction');
        };
        await expect(
          cancelTransaction(h.deps, { transactionId: tx.id, browserOrigin: '', sessionPublicId: c.sessionPublicId }),
        ).rejects.toMatchObject({
          httpStatus: 409,
          code: 'PAYMENT_STARTING',
        });
        // The provider confirms a cancel that raced the start: the started payment is canceled too, and no secret leaves.
        h.payments.onCancel = async () => ({ cancelled: true });
        expect(
          (
            await cancelTransaction(h.deps, {
              transactionId: tx.id,
              browserOrigin: '',
              sessionPublicId: c.sessionPublicId,
            })
          ).status,
        ).toBe(-2);
        const callsBefore = h.payments.cancelCalls.filter((x) => x.transactionId === tx.id).length;
        release();
        await expect(paying).rejects.toMatchObject({ httpStatus: 409, code: 'TRANSACTION_CANCELED' });
        expect(h.payments.cancelCalls.filter((x) => x.transactionId === tx.id).length).toBe(callsBefore + 1);
      } finally {
        release();
        h.payments.onCreate = normal;
        h.payments.onCancel = async () => ({ cancelled: true });
      }
    });

    it('closes the payment of a declined attempt at the provider before a new attempt, so the buyer cannot pay twice', async () => {
      const c = await checkout();
      const session = () => h.deps.store.collection<CheckoutDoc>(CHECKOUTS).get(c.id);
      // A session's first attempt has no earlier one to look for; the decline notes one ended.
      expect((await session())?.attemptsEnded).toBe(false);
      const first = (await pay(c)).transaction;
      expect((await session())?.attemptsEnded).toBe(false);
      await applyPaymentStatus(h.deps, report(first.id, 'failed', `decl_${first.id}`));
      expect((await session())?.attemptsEnded).toBe(true);
      const second = (await pay(c)).transaction;
      expect(second.id).not.toBe(first.id);
      expect(h.payments.cancelCalls.filter((x) => x.transactionId === first.id)).toHaveLength(1);

      // If the earlier payment was captured after all, no new attempt is opened.
      await applyPaymentStatus(h.deps, report(second.id, 'failed', `decl_${second.id}`));
      h.payments.onCancel = async () => {
        throw new ConflictError('payment already captured at the provider', { code: 'PAYMENT_ALREADY_CAPTURED' });
      };
      try {
        await expect(pay(c)).rejects.toMatchObject({ httpStatus: 409, code: 'CHECKOUT_ALREADY_PAID' });
      } finally {
        h.payments.onCancel = async () => ({ cancelled: true });
      }
    });

    it('looks for earlier attempts of a session stored before it noted ended attempts', async () => {
      const c = await checkout();
      const sessions = h.deps.store.collection<CheckoutDoc>(CHECKOUTS);
      await sessions.update(c.id, (cur) => {
        const { id: _id, version: _v, attemptsEnded: _a, ...rest } = cur;
        return rest;
      });
      expect(await sessions.get(c.id)).not.toHaveProperty('attemptsEnded');
      const first = (await pay(c)).transaction;
      await applyPaymentStatus(h.deps, report(first.id, 'failed', `legacy_${first.id}`));
      expect(await sessions.get(c.id)).not.toHaveProperty('attemptsEnded');
      await pay(c);
      expect(h.payments.cancelCalls.filter((x) => x.transactionId === first.id)).toHaveLength(1);
    });

    it('leaves the transaction pending when the provider cannot cancel (409 CANCEL_REFUSED)', async () => {
      const tx = (await pay(await checkout())).transaction;
      h.payments.onCancel = async () => ({ cancelled: false });
      try {
        await expect(cancelTransaction(h.deps, asBuyer(tx))).rejects.toMatchObject({
          httpStatus: 409,
          code: 'CANCEL_REFUSED',
        });
      } finally {
        h.payments.onCancel = async () => ({ cancelled: true });
      }
      expect((await getTransaction(h.deps, org.organizationId, 'live', tx.id)).status).toBe(0);
    });

    it('cancels locally when the provider never created a payment', async () => {
      const tx = (await pay(await checkout())).transaction;
      h.payments.onCancel = async () => {
        throw new NotFoundError('no payment for this transaction');
      };
      try {
        expect((await cancelTransaction(h.deps, asBuyer(tx))).status).toBe(-2);
      } finally {
        h.payments.onCancel = async () => ({ cancelled: true });
      }
    });

    it('refuses to cancel a completed transaction without asking the provider', async () => {
      const tx = (await pay(await checkout())).transaction;
      await applyPaymentStatus(h.deps, report(tx.id, 'succeeded', `ok_${tx.id}`));
      const calls = h.payments.cancelCalls.length;
      await expect(cancelTransaction(h.deps, asBuyer(tx))).rejects.toMatchObject({
        httpStatus: 409,
        code: 'ILLEGAL_TRANSITION',
      });
      expect(h.payments.cancelCalls).toHaveLength(calls);
    });

    it('marks pending_provider without an event; only from pending', async () => {
      const tx = (await pay(await checkout())).transaction;
      const marked = await markTransactionPending(h.deps, asBuyer(tx));
      expect(marked).toMatchObject({ status: 0, subState: 'pending_provider' });
      expect((await markTransactionPending(h.deps, asBuyer(tx))).subState).toBe('pending_provider');
      expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0]);
      expect((await getTransactionStatus(h.deps, tx.id)).status).toBe(0);
      const history = (await getTransaction(h.deps, org.organizationId, 'live', tx.id)).statusHistory;
      expect(history.at(-1)).toMatchObject({ from: 0, to: 0, subState: 'pending_provider', trigger: 'mark_pending' });
      await applyPaymentStatus(h.deps, report(tx.id, 'succeeded', `pp_${tx.id}`));
      const done = await getTransaction(h.deps, org.organizationId, 'live', tx.id);
      expect(done).toMatchObject({ status: 1, subState: null });
      await expect(markTransactionPending(h.deps, asBuyer(tx))).rejects.toMatchObject({ httpStatus: 409 });
    });
  });

  describe('status view', () => {
    it('omits an empty external reference and return URL', async () => {
      const c = await checkout({ externalReference: undefined, invoiceNumber: 'INV-5', returnUrl: undefined });
      const tx = (await pay(c)).transaction;
      expect(await getTransactionStatus(h.deps, tx.id)).toEqual({
        status: 0,
        amount: 4200,
        currency: 'EUR',
        createdAt: tx.createdAt,
      });
      await expect(getTransactionStatus(h.deps, newObjectId())).rejects.toMatchObject({ httpStatus: 404 });
      await expect(getTransactionStatus(h.deps, 'not-an-id')).rejects.toMatchObject({ httpStatus: 404 });
    });
  });

  describe('admin', () => {
    it('records manual transactions with a reason and announces their first status', async () => {
      const m = await createManualTransaction(h.deps, {
        ...org,
        mode: 'live',
        amount: 9900,
        currency: 'usd',
        externalReference: 'wire-1',
        status: 1,
        reason: 'paid by bank transfer',
      });
      expect(m).toMatchObject({
        status: 1,
        manual: true,
        manualReason: 'paid by bank transfer',
        currency: 'USD',
        providerId: null,
      });
      expect(m.statusHistory).toEqual([
        expect.objectContaining({ from: null, to: 1, trigger: 'create_manual', reason: 'paid by bank transfer' }),
      ]);
      expect((await h.statusEvents(m.id)).map((e) => [e.previousStatus, e.status, e.sequence])).toEqual([[null, 1, 1]]);
      // A sale from its first status: on the subject billing and the tax ledger consume.
      expect(
        (await h.pending()).filter((e) => JSON.stringify(e.payload).includes(m.id)).map((e) => e.subject),
      ).toContain('checkout.transaction.status_changed');
      for (const [bad, field] of [
        [{ status: 0, reason: 'r' }, 'status'],
        [{ status: 1, reason: ' ' }, 'reason'],
      ] as const) {
        await expect(
          createManualTransaction(h.deps, {
            ...org,
            mode: 'live',
            amount: 1,
            currency: 'EUR',
            externalReference: 'x',
            ...bad,
          }),
        ).rejects.toMatchObject({ httpStatus: 400, field });
      }
    });

    it('changes status only along legal manual transitions of non-provider transactions', async () => {
      const m = await createManualTransaction(h.deps, {
        ...org,
        mode: 'live',
        amount: 500,
        currency: 'EUR',
        invoiceNumber: 'INV-1',
        status: -1,
        reason: 'awaiting wire',
      });
      const ref = { organizationId: org.organizationId, mode: 'live' as const, id: m.id };
      await expect(updateTransaction(h.deps, ref, { status: 1 })).rejects.toMatchObject({
        httpStatus: 400,
        field: 'reason',
      });
      const done = await updateTransaction(h.deps, ref, {
        status: 1,
        reason: 'wire received',
        notes: 'checked statement',
      });
      expect(done).toMatchObject({ status: 1, notes: 'checked statement' });
      expect((await h.statusEvents(m.id)).map((e) => e.status)).toEqual([-1, 1]);
      await expect(updateTransaction(h.deps, ref, { status: -2, reason: 'oops' })).rejects.toMatchObject({
        httpStatus: 409,
        code: 'ILLEGAL_TRANSITION',
      });
      // "Mark refunded": a completed manual transaction may move to 3; repeating it changes nothing.
      expect(await updateTransaction(h.deps, ref, { status: 3, reason: 'refunded by wire' })).toMatchObject({
        status: 3,
      });
      expect(await updateTransaction(h.deps, ref, { status: 3, reason: 'refunded by wire' })).toMatchObject({
        status: 3,
      });
      expect((await h.statusEvents(m.id)).map((e) => e.status)).toEqual([-1, 1, 3]);
      const tx = (await pay(await checkout())).transaction;
      await expect(
        updateTransaction(h.deps, { ...ref, id: tx.id }, { status: 1, reason: 'trust me' }),
      ).rejects.toMatchObject({ httpStatus: 409, code: 'ILLEGAL_TRANSITION' });
      const meta = await updateTransaction(
        h.deps,
        { ...ref, id: tx.id },
        { metadata: { crm: '7' }, externalReference: 'order-78' },
      );
      expect(meta).toMatchObject({ metadata: { crm: '7' }, externalReference: 'order-78', status: 0 });
      await expect(updateTransaction(h.deps, { ...ref, id: tx.id }, {})).rejects.toMatchObject({ httpStatus: 400 });
      await expect(
        updateTransaction(h.deps, { ...ref, organizationId: newObjectId() }, { notes: 'x' }),
      ).rejects.toMatchObject({ httpStatus: 404 });
    });

    it('soft-deletes only quiet transactions without a provider payment', async () => {
      const m = await createManualTransaction(h.deps, {
        ...org,
        mode: 'live',
        amount: 5,
        currency: 'EUR',
        externalReference: 'del',
        status: -1,
        reason: 'draft',
      });
      const ref = { organizationId: org.organizationId, mode: 'live' as const, id: m.id };
      const paid = (await pay(await checkout())).transaction;
      await expect(deleteTransaction(h.deps, { ...ref, id: paid.id })).rejects.toMatchObject({
        httpStatus: 409,
        code: 'TRANSACTION_NOT_DELETABLE',
      });
      await deleteTransaction(h.deps, ref);
      await expect(getTransaction(h.deps, org.organizationId, 'live', m.id)).rejects.toMatchObject({ httpStatus: 404 });
      await expect(getTransactionStatus(h.deps, m.id)).rejects.toMatchObject({ httpStatus: 404 });
      const all = await listTransactions(h.deps, {
        organizationId: org.organizationId,
        mode: 'live',
        page: 1,
        limit: 100,
      });
      expect(all.items.map((t) => t.id)).not.toContain(m.id);
      expect(await h.store.collection('transactions').get(m.id)).toMatchObject({ deletedAt: expect.any(String) });
    });

    it('filters the list by statuses, currency, dates, sites and providers; pages newest first', async () => {
      const s = await h.site();
      const p = h.payments.addProvider({ organizationId: s.organizationId });
      const second = await h.site({ organizationId: s.organizationId });
      const mk = async (siteId: string, currency: string, status: -1 | 1) =>
        createManualTransaction(h.deps, {
          organizationId: s.organizationId,
          siteId,
          mode: 'live',
          amount: 10,
          currency,
          externalReference: 'r',
          status,
          reason: 'x',
        });
      h.clock.set('2026-04-01T08:00:00.000Z');
      const a = await mk(s.siteId, 'EUR', 1);
      h.clock.set('2026-04-02T23:59:59.000Z');
      const b = await mk(s.siteId, 'USD', -1);
      h.clock.set('2026-04-03T00:00:00.000Z');
      const c = await mk(second.siteId, 'EUR', 1);
      h.clock.set('2026-04-03T00:00:01.000Z');
      const buyer = await createCheckout(h.deps, {
        ...s,
        mode: 'live',
        amount: 10,
        currency: 'EUR',
        externalReference: 'p',
      });
      const viaProvider = (
        await createTransaction(h.deps, {
          sessionPublicId: buyer.sessionPublicId,
          providerId: p.id,
          billingAddress: BUYER_BILLING,
          browserOrigin: '',
        })
      ).transaction;
      h.clock.set('2026-03-01T12:00:00.000Z');
      const q = { organizationId: s.organizationId, mode: 'live' as const, page: 1, limit: 10 };
      const ids = async (extra: Record<string, unknown>) =>
        (await listTransactions(h.deps, { ...q, ...extra })).items.map((t) => t.id);
      expect(await ids({})).toEqual([viaProvider.id, c.id, b.id, a.id]);
      expect(await ids({ statuses: [1] })).toEqual([c.id, a.id]);
      expect(await ids({ statuses: [-1, 0] })).toEqual([viaProvider.id, b.id]);
      expect(await ids({ currency: 'usd' })).toEqual([b.id]);
      expect(await ids({ createdFrom: '2026-04-02T00:00:00.000Z', createdTo: '2026-04-02T23:59:59.999Z' })).toEqual([
        b.id,
      ]);
      expect(await ids({ siteIds: [second.siteId] })).toEqual([c.id]);
      expect(await ids({ providerIds: [p.id] })).toEqual([viaProvider.id]);
      // The dashboard's search: a merchant's reference, or a buyer's e-mail address (typed in any case).
      expect(await ids({ externalReference: 'p' })).toEqual([viaProvider.id]);
      expect(await ids({ externalReference: 'r' })).toEqual([c.id, b.id, a.id]);
      expect(await ids({ email: 'ada@example.com' })).toEqual([viaProvider.id]);
      expect(await ids({ email: 'ADA@example.com' })).toEqual([viaProvider.id]);
      expect(await ids({ email: 'eve@example.com' })).toEqual([]);
      const page2 = await listTransactions(h.deps, { ...q, page: 2, limit: 3 });
      expect(page2).toMatchObject({ total: 4, page: 2, limit: 3 });
      expect(page2.items.map((t) => t.id)).toEqual([a.id]);
      expect((await listTransactions(h.deps, { ...q, mode: 'test' })).total).toBe(0);
    });

    it('counts a long list up to 10,001 and says the total is a lower bound', async () => {
      const s = await h.site();
      const N = LIST_COUNT_BOUND + 30;
      const docs = Array.from({ length: N }, (_, i) => ({
        organizationId: s.organizationId,
        mode: 'live',
        siteId: s.siteId,
        status: 1,
        createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      }));
      const col = h.store.collection('transactions');
      for (let at = 0; at < N; at += 1000) await col.insertMany(docs.slice(at, at + 1000));
      const q = { organizationId: s.organizationId, mode: 'live' as const, page: 1, limit: 20 };
      const first = await listTransactions(h.deps, q);
      expect(first).toMatchObject({ total: LIST_COUNT_BOUND + 1, totalIsLowerBound: true });
      expect(first.items[0]?.createdAt).toBe(docs.at(-1)?.createdAt);
      // Past the bound the count reaches one beyond the page asked for: the next page exists.
      const deep = await listTransactions(h.deps, { ...q, page: 500 });
      expect(deep).toMatchObject({ total: 10_001, totalIsLowerBound: true });
      const deeper = await listTransactions(h.deps, { ...q, page: 501 });
      expect(deeper).toMatchObject({ total: 10_021, totalIsLowerBound: true });
      // The last (short) page knows the exact total; so does a filtered list below the bound.
      const last = await listTransactions(h.deps, { ...q, page: 502 });
      expect(last).toMatchObject({ total: N });
      expect(last.items).toHaveLength(10);
      expect(last.totalIsLowerBound).toBeUndefined();
      const ranged = await listTransactions(h.deps, { ...q, createdTo: docs[99]?.createdAt });
      expect(ranged).toMatchObject({ total: 100 });
      expect(ranged.totalIsLowerBound).toBeUndefined();
    });
  });
});

/** The default CreatePayment behaviour of the fake, to restore after a test replaced it. */
const FakeDefaults = {
  create: (h: Harness) => async (input: { transactionId: string; providerId: string }) => ({
    providerType: h.payments.providers.find((p) => p.id === input.providerId)?.type ?? 'provider_a',
    providerPaymentId: `pi_${input.transactionId}`,
    redirectUrl: `https://provider.example/pay/${input.transactionId}`,
    clientSecret: `secret_${input.transactionId}`,
  }),
};
