import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import Stripe from 'stripe';
import { Committer } from '@paymesh/bus';
import type { EventMap } from '@paymesh/contracts';
import * as sandboxA from '@paymesh/sandbox-provider-a';
import * as sandboxB from '@paymesh/sandbox-provider-b';
import * as sandboxC from '@paymesh/sandbox-provider-c';
import * as sandboxD from '@paymesh/sandbox-provider-d';
import { createLogger, SecretBox, systemClock } from '@paymesh/core';
import { createStore, type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import type { PaymentsDeps } from '../src/app/deps';
import type { CreatePaymentCommand } from '../src/app/create-payment';
import type { Mode, ProviderDoc, ProviderType } from '../src/domain/provider';
import { createProvider } from '../src/app/create-provider';
import { adapterFactory } from '../src/providers/registry';
import { ProviderAdapters } from '../src/providers/cache';
import { collections } from '../src/store/collections';
import { sandboxEnv, startSandbox } from './sandbox-kit';

export const PG_URL = TEST_PG_URL;

export interface Harness {
  deps: PaymentsDeps;
  store: DroppableStore;
  sandboxUrl: string;
  /** The provider_b sandbox. */
  sandboxBUrl: string;
  /** The provider_c sandbox. */
  sandboxCUrl: string;
  /** The provider_d sandbox. */
  sandboxDUrl: string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Where providers deliver webhooks (`<root>/hooks/<type>/<id>`). */
  publicRootUrl?: string;
}

/**
 * The harness of the tests of one file (or describe block): started before them, closed after them.
 * Its fields are read when a test runs.
 */
export function harnessForTests(opts: HarnessOptions = {}): Harness {
  let started: Harness | undefined;
  beforeAll(async () => {
    started = await startHarness(opts);
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = (): Harness => {
    if (!started) throw new Error('the harness starts before the tests');
    return started;
  };
  return {
    get deps() {
      return current().deps;
    },
    get store() {
      return current().store;
    },
    get sandboxUrl() {
      return current().sandboxUrl;
    },
    get sandboxBUrl() {
      return current().sandboxBUrl;
    },
    get sandboxCUrl() {
      return current().sandboxCUrl;
    },
    get sandboxDUrl() {
      return current().sandboxDUrl;
    },
    close: () => current().close(),
  };
}

/** payments-webhooks use cases on a fresh PostgreSQL schema, talking to a real provider_a sandbox. */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const quickRetries = { WEBHOOK_RETRY_BASE_MS: '50' };
  const a = await startSandbox(sandboxA, sandboxEnv('PROVIDER_A_SANDBOX', quickRetries));
  const b = await startSandbox(sandboxB, sandboxEnv('PROVIDER_B_SANDBOX', quickRetries));
  const c = await startSandbox(sandboxC, sandboxEnv('PROVIDER_C_SANDBOX', quickRetries));
  const d = await startSandbox(sandboxD, sandboxEnv('PROVIDER_D_SANDBOX', quickRetries));
  const store = await createStore({ url: PG_URL, database: `pwtest_${randomBytes(4).toString('hex')}` });
  for (const c of collections) await store.ensureCollection(c);
  const h: Harness = {
    store,
    sandboxUrl: a.url,
    sandboxBUrl: b.url,
    sandboxCUrl: c.url,
    sandboxDUrl: d.url,
    deps: {
      store,
      outbox: new Committer<EventMap>({ store }),
      secrets: new SecretBox(`k1:${randomBytes(32).toString('base64')}`),
      clock: systemClock,
      logger: createLogger({ service: 'payments-webhooks-test', level: 'silent' }),
      adapters: new ProviderAdapters(
        adapterFactory({
          provider_a: { defaultApiBaseUrl: a.url, timeoutMs: 3000, maxNetworkRetries: 0 },
          provider_b: { defaultApiBaseUrl: b.url, timeoutMs: 3000, maxNetworkRetries: 0 },
          provider_c: { defaultApiBaseUrl: c.url, timeoutMs: 3000, maxNetworkRetries: 0 },
          provider_d: {
            defaultApiBaseUrl: d.url,
            timeoutMs: 3000,
            maxNetworkRetries: 0,
            webhookToleranceMs: 300_000,
          },
        }),
      ),
      publicRootUrl: opts.publicRootUrl ?? 'http://127.0.0.1:18081',
      requireHttps: false,
    },
    async close() {
      await store.dropDatabase();
      await store.close();
      await a.close();
      await b.close();
      await c.close();
      await d.close();
    },
  };
  return h;
}

export const objectId = () => randomBytes(12).toString('hex');

/** A payment command for a new transaction of the provider record: 42.00 EUR, no buyer details. */
export function paymentCmd(p: ProviderDoc, over: Partial<CreatePaymentCommand> = {}): CreatePaymentCommand {
  return {
    organizationId: p.organizationId,
    mode: p.mode,
    siteId: objectId(),
    providerId: p.id,
    transactionId: objectId(),
    amount: 4200,
    currency: 'EUR',
    description: null,
    buyerEmail: null,
    returnUrl: 'https://shop.example/back',
    ...over,
  };
}
export const testKey = () => `sk_test_${randomBytes(12).toString('hex')}`;
/** A fresh provider_b sandbox account (any well-formed key is one). */
export const providerBKey = () => `test_${randomBytes(15).toString('hex')}`;
/** A fresh provider_c sandbox account (any well-formed token is one). */
export const providerCToken = () => `sandbox_${randomBytes(15).toString('hex')}`;
export const webhookSecret = () => `whsec_${randomBytes(24).toString('hex')}`;

/** A provider record created through the use case from `credentials`: test mode, of a new organization unless `tenant` names them. */
export async function testProvider(
  deps: PaymentsDeps,
  type: ProviderType,
  name: string,
  credentials: Record<string, unknown>,
  tenant: { organizationId?: string; mode?: Mode } = {},
): Promise<ProviderDoc> {
  const { provider } = await createProvider(deps, {
    organizationId: tenant.organizationId ?? objectId(),
    mode: tenant.mode ?? 'test',
    type,
    name,
    credentialsJson: JSON.stringify(credentials),
  });
  return provider;
}

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

const signer = new Stripe('sk_test_signing_only', { telemetry: false });

/** A provider_a delivery of `event`, created now and signed with `secret`: its raw body and headers. */
export function signedEvent(
  secret: string,
  event: { id: string; type: string; livemode?: boolean; object: object },
): { rawBody: Buffer; headers: Record<string, string> } {
  const body = JSON.stringify(
    {
      id: event.id,
      object: 'event',
      type: event.type,
      created: Math.floor(Date.now() / 1000),
      livemode: event.livemode ?? false,
      data: { object: event.object },
    },
    null,
    2,
  );
  const header = signer.webhooks.generateTestHeaderString({ payload: body, secret });
  return { rawBody: Buffer.from(body), headers: { 'stripe-signature': header, 'content-type': 'application/json' } };
}
