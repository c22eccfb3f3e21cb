import { randomBytes } from 'node:crypto';
import { Committer } from '@paymesh/bus';
import type { EventMap } from '@paymesh/contracts';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildServer, loadSandboxConfig } from '@paymesh/sandbox-provider-a';
import * as sandboxB from '@paymesh/sandbox-provider-b';
import * as sandboxC from '@paymesh/sandbox-provider-c';
import * as sandboxD from '@paymesh/sandbox-provider-d';
import { createLogger, SecretBox, systemClock } from '@paymesh/core';
import { createStore, type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import type { PaymentsDeps } from '../src/app/deps';
import { adapterFactory } from '../src/providers/registry';
import { ProviderAdapters } from '../src/providers/cache';
import { collections } from '../src/store/collections';

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

/** payments-webhooks use cases on a fresh PostgreSQL schema, talking to a real provider_a sandbox. */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const config = loadSandboxConfig({
    LOG_LEVEL: 'silent',
    PROVIDER_A_SANDBOX_HOST: '127.0.0.1',
    PROVIDER_A_SANDBOX_PORT: '0',
    PROVIDER_A_SANDBOX_WEBHOOK_RETRY_BASE_MS: '50',
  });
  const sandbox: FastifyInstance = buildServer(config);
  await sandbox.listen({ host: config.host, port: config.port });
  const sandboxUrl = `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
  const configB = sandboxB.loadSandboxConfig({
    LOG_LEVEL: 'silent',
    PROVIDER_B_SANDBOX_HOST: '127.0.0.1',
    PROVIDER_B_SANDBOX_PORT: '0',
    PROVIDER_B_SANDBOX_WEBHOOK_RETRY_BASE_MS: '50',
  });
  const b: FastifyInstance = sandboxB.buildServer(configB);
  await b.listen({ host: configB.host, port: configB.port });
  const sandboxBUrl = `http://127.0.0.1:${(b.server.address() as AddressInfo).port}`;
  const configC = sandboxC.loadSandboxConfig({
    LOG_LEVEL: 'silent',
    PROVIDER_C_SANDBOX_HOST: '127.0.0.1',
    PROVIDER_C_SANDBOX_PORT: '0',
    PROVIDER_C_SANDBOX_WEBHOOK_RETRY_BASE_MS: '50',
  });
  const c: FastifyInstance = sandboxC.buildServer(configC);
  await c.listen({ host: configC.host, port: configC.port });
  const sandboxCUrl = `http://127.0.0.1:${(c.server.address() as AddressInfo).port}`;
  const configD = sandboxD.loadSandboxConfig({
    LOG_LEVEL: 'silent',
    PROVIDER_D_SANDBOX_PORT: '0',
    PROVIDER_D_SANDBOX_WEBHOOK_RETRY_BASE_MS: '50',
  });
  const d: FastifyInstance = sandboxD.buildServer(configD);
  await d.listen({ host: configD.host, port: configD.port });
  const sandboxDUrl = `http://127.0.0.1:${(d.server.address() as AddressInfo).port}`;
  const store = await createStore({ url: PG_URL, database: `pwtest_${randomBytes(4).toString('hex')}` });
  for (const c of collections) await store.ensureCollection(c);
  const h: Harness = {
    store,
    sandboxUrl,
    sandboxBUrl,
    sandboxCUrl,
    sandboxDUrl,
    deps: {
      store,
      outbox: new Committer<EventMap>({ store }),
      secrets: new SecretBox(`k1:${randomBytes(32).toString('base64')}`),
      clock: systemClock,
      logger: createLogger({ service: 'payments-webhooks-test', level: 'silent' }),
      adapters: new ProviderAdapters(
        adapterFactory({
          provider_a: { defaultApiBaseUrl: sandboxUrl, timeoutMs: 3000, maxNetworkRetries: 0 },
          provider_b: { defaultApiBaseUrl: sandboxBUrl, timeoutMs: 3000, maxNetworkRetries: 0 },
          provider_c: { defaultApiBaseUrl: sandboxCUrl, timeoutMs: 3000, maxNetworkRetries: 0 },
          provider_d: {
            defaultApiBaseUrl: sandboxDUrl,
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
      await sandbox.close();
      await b.close();
      await c.close();
      await d.close();
    },
  };
  return h;
}

export const objectId = () => randomBytes(12).toString('hex');
export const testKey = () => `sk_test_${randomBytes(12).toString('hex')}`;
/** A fresh provider_b sandbox account (any well-formed key is one). */
export const providerBKey = () => `test_${randomBytes(15).toString('hex')}`;
/** A fresh provider_c sandbox account (any well-formed token is one). */
export const providerCToken = () => `sandbox_${randomBytes(15).toString('hex')}`;
export const webhookSecret = () => `whsec_${randomBytes(24).toString('hex')}`;

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}
