import { randomBytes } from 'node:crypto';
import { createLogger, DEV_SECRETS_KEYRING, SecretBox, systemClock, newObjectId } from '@paymesh/core';
import { createStore, type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import { Committer } from '@paymesh/bus';
import type { EventMap } from '@paymesh/contracts';
import type { CheckoutDeps } from '../src/app/deps';
import { collections } from '../src/store/collections';
import { createDnsResolver } from '../src/dns/resolver';

export const PG_URL = TEST_PG_URL;

export interface TestCheckout {
  deps: CheckoutDeps;
  store: DroppableStore;
  close(): Promise<void>;
}

/** Checkout use-case dependencies on a throw-away PostgreSQL schema, with a real DNS resolver. */
export async function openTestCheckout(
  dnsServer: string,
  cnameTarget = 'checkout.paymesh.example',
): Promise<TestCheckout> {
  const store = await createStore({ url: PG_URL, database: `checkout_test_${randomBytes(5).toString('hex')}` });
  for (const c of collections) await store.ensureCollection(c);
  const t: TestCheckout = {
    store,
    deps: {
      store,
      outbox: new Committer<EventMap>({ store }),
      secrets: new SecretBox(DEV_SECRETS_KEYRING),
      clock: systemClock,
      logger: createLogger({ service: 'checkout-test', level: 'silent' }),
      customDomains: { resolver: createDnsResolver({ servers: [dnsServer], timeoutMs: 500, tries: 1 }), cnameTarget },
    },
    async close() {
      await store.dropDatabase();
      await store.close();
    },
  };
  return t;
}

export const orgId = () => newObjectId();
