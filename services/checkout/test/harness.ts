import { randomBytes } from 'node:crypto';
import {
  createLogger,
  ManualClock,
  NotFoundError,
  UnavailableError,
  SecretBox,
  DEV_SECRETS_KEYRING,
  newObjectId,
  parseTargetAllowList,
} from '@paymesh/core';
import { Committer } from '@paymesh/bus';
import { createStore, dropStoreDatabase, type DroppableStore, type OutboxEvent, TEST_PG_URL } from '@paymesh/store';
import type { CalculateTaxRequest, EventMap, TaxCalculation, TransactionStatusChanged } from '@paymesh/contracts';
import type { PaymentsDeps } from '../src/app/payments-deps';
import type { CreatedPayment, CreatePaymentInput, PaymentsPort, ProviderInfo } from '../src/app/payments-port';
import type { TaxPort } from '../src/app/tax-port';
import { PriceModeMemo } from '../src/app/price-mode-memo';
import { createSite } from '../src/app/create-site';
import { createCheckout } from '../src/app/create-checkout';
import type { CheckoutDoc } from '../src/domain/checkout';
import { collections } from '../src/store/collections';

export const PG_URL = TEST_PG_URL;

/** Stand-in for payments-webhooks: records calls; behaviour switchable per test. */
export class FakePayments implements PaymentsPort {
  providers: ProviderInfo[] = [];
  createCalls: CreatePaymentInput[] = [];
  cancelCalls: { organizationId: string; providerId: string; transactionId: string }[] = [];
  onCreate: (input: CreatePaymentInput) => Promise<CreatedPayment> = async (input) => ({
    providerType: this.providers.find((p) => p.id === input.providerId)?.type ?? 'provider_a',
    providerPaymentId: `pi_${input.transactionId}`,
    redirectUrl: `https://provider.example/pay/${input.transactionId}`,
    clientSecret: `secret_${input.transactionId}`,
  });
  onCancel: () => Promise<{ cancelled: boolean }> = async () => ({ cancelled: true });

  addProvider(p: Partial<ProviderInfo> & Pick<ProviderInfo, 'organizationId'>): ProviderInfo {
    const info: ProviderInfo = { id: newObjectId(), type: 'provider_a', enabled: true, testMode: false, ...p };
    this.providers.push(info);
    return info;
  }
  async getProvider(ref: { organizationId: string; id: string; testMode: boolean }): Promise<ProviderInfo> {
    const p = this.providers.find(
      (x) => x.id === ref.id && x.organizationId === ref.organizationId && x.testMode === ref.testMode,
    );
    if (!p) throw new NotFoundError('provider not found');
    return p;
  }
  async listProviders(q: { organizationId: string; testMode: boolean }): Promise<ProviderInfo[]> {
    return this.providers.filter((p) => p.organizationId === q.organizationId && p.testMode === q.testMode);
  }
  async createPayment(input: CreatePaymentInput): Promise<CreatedPayment> {
    this.createCalls.push(input);
    return this.onCreate(input);
  }
  async cancelPayment(input: {
    organizationId: string;
    providerId: string;
    transactionId: string;
  }): Promise<{ cancelled: boolean }> {
    this.cancelCalls.push(input);
    return this.onCancel();
  }
}

/**
 * Stand-in for the tax service: which organization/mode pairs allow VIES; can be made to fail.
 * CalculateTax records its requests and answers with `onCalculate` (a test sets the answer it
 * needs; by default the service is unreachable).
 */
export class FakeTax implements TaxPort {
  readonly viesOrgs = new Set<string>();
  calls = 0;
  unavailable = false;
  calculateCalls: CalculateTaxRequest[] = [];
  onCalculate: (request: CalculateTaxRequest) => Promise<TaxCalculation> = async () => {
    throw new UnavailableError('tax is down');
  };
  async calculate(request: CalculateTaxRequest): Promise<TaxCalculation> {
    this.calculateCalls.push(request);
    return this.onCalculate(request);
  }
  allowVies(organizationId: string, mode: 'live' | 'test' = 'live'): void {
    this.viesOrgs.add(`${organizationId}:${mode}`);
  }
  async viesAllowed(q: { organizationId: string; testMode: boolean }): Promise<boolean> {
    this.calls += 1;
    if (this.unavailable) throw new UnavailableError('tax is down');
    return this.viesOrgs.has(`${q.organizationId}:${q.testMode ? 'test' : 'live'}`);
  }
}

/** The billing address a buyer gives when paying in these tests. */
export const BUYER_BILLING = {
  name: 'Ada Buyer',
  email: 'ada@example.com',
  line1: 'Main 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};

export interface Harness {
  deps: PaymentsDeps;
  store: DroppableStore;
  clock: ManualClock;
  payments: FakePayments;
  tax: FakeTax;
  dns: Map<string, string[]>;
  /** CNAME records the custom-domain resolver answers with (host -> targets). */
  cnames: Map<string, string[]>;
  /** Creates an organization's site (live unless said otherwise) with the given frontend domains. */
  site(opts?: {
    organizationId?: string;
    mode?: 'live' | 'test';
    frontendDomains?: string[];
  }): Promise<{ organizationId: string; siteId: string }>;
  /** A live checkout of the site for 42.00 EUR; `fields` add to or override that. */
  checkout(org: { organizationId: string; siteId: string }, fields?: Record<string, unknown>): Promise<CheckoutDoc>;
  /** status_changed events waiting in the outbox for a transaction, in sequence order. */
  statusEvents(transactionId: string): Promise<TransactionStatusChanged[]>;
  pending(): Promise<OutboxEvent[]>;
  close(): Promise<void>;
}

export async function openHarness(settings: Partial<PaymentsDeps['settings']> = {}): Promise<Harness> {
  const database = `checkout_it_${randomBytes(5).toString('hex')}`;
  const store = await createStore({ url: PG_URL, database });
  for (const c of collections) await store.ensureCollection(c);
  const logger = createLogger({ service: 'checkout-test', level: 'silent' });
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const payments = new FakePayments();
  const tax = new FakeTax();
  // Names the tests give as IPN targets resolve to a public address unless a test says otherwise.
  const dns = new Map<string, string[]>([
    ['shop.example', ['93.184.216.34']],
    ['merchant.example', ['93.184.216.34']],
  ]);
  const cnames = new Map<string, string[]>();
  const deps: PaymentsDeps = {
    store,
    // No relay: committed events stay in the outbox, where the tests read them.
    outbox: new Committer<EventMap>({ store }),
    secrets: new SecretBox(DEV_SECRETS_KEYRING),
    clock,
    logger,
    customDomains: {
      resolver: {
        resolveCname: async (host) => {
          const names = cnames.get(host);
          return names ? { kind: 'found', names } : { kind: 'none', reason: 'the name has no CNAME record' };
        },
        resolveTxt: async () => ({ kind: 'none', reason: 'the name does not exist in DNS' }),
      },
      cnameTarget: 'checkout.paymesh.example',
    },
    payments,
    tax,
    priceModes: new PriceModeMemo(clock),
    settings: {
      checkoutFrontendUrl: 'https://pay.example',
      sessionTtlHours: 24,
      handoffTtlSeconds: 600,
      ipnPolicy: { allowHttp: true, allowedTargets: parseTargetAllowList('127.0.0.1') },
      ...settings,
    },
    resolveHost: async (host) => {
      const a = dns.get(host);
      if (!a) throw new Error(`ENOTFOUND ${host}`);
      return a;
    },
    guards: [],
  };
  const pending = () => store.outbox.pending(1000);
  return {
    deps,
    store,
    clock,
    payments,
    tax,
    dns,
    cnames,
    async site(opts = {}) {
      const organizationId = opts.organizationId ?? newObjectId();
      const { site } = await createSite(deps, {
        organizationId,
        mode: opts.mode ?? 'live',
        name: 'Shop',
        url: 'https://shop.example',
        frontendDomains: opts.frontendDomains ?? ['shop.example'],
      });
      return { organizationId, siteId: site.id };
    },
    checkout: (org, fields = {}) =>
      createCheckout(deps, { ...org, mode: 'live', amount: 4200, currency: 'EUR', ...fields }),
    pending,
    async statusEvents(transactionId) {
      // A buyer transaction's first status (0) is `checkout.transaction.opened`, every later one
      // `checkout.transaction.status_changed`; both are the transaction's status events.
      const events = (await pending()).filter(
        (e) => e.subject === 'checkout.transaction.status_changed' || e.subject === 'checkout.transaction.opened',
      );
      const data = events
        .map((e) => (e.payload as { data: TransactionStatusChanged }).data)
        .filter((d) => d.transactionId === transactionId);
      return data.sort((a, b) => a.sequence - b.sequence);
    },
    async close() {
      await store.close();
      await dropStoreDatabase({ url: PG_URL, database });
    },
  };
}
