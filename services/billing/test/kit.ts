import { randomBytes } from 'node:crypto';
import {
  createLogger,
  DEV_SECRETS_KEYRING,
  newObjectId,
  NotFoundError,
  SecretBox,
  systemClock,
  type Clock,
} from '@paymesh/core';
import { Committer, type EventEnvelope } from '@paymesh/bus';
import { createStore, type DroppableStore } from '@paymesh/store';
import {
  Subjects,
  type ChargebackResolved,
  type EventMap,
  type TransactionRefunded,
  type TransactionStatusChanged,
} from '@paymesh/contracts';
import type { InvoiceBuyer } from '../src/app/client-port';
import type { BillingDeps, OrgKey } from '../src/app/deps';
import type { InvoiceDeps } from '../src/app/invoice-deps';
import { collections } from '../src/store/collections';
import { testDatabase } from '../../../test/support/kit';
import { fakeCalculation, PG_URL } from './tax-fixture';

/**
 * The billing suites' kit: a database of their own with billing's collections, invoice use-case
 * dependencies whose other services stand in as plain functions, and the buyers their invoices
 * are for.
 */

/**
 * Buyers by client id. Clients are another use case's work: the suites replace the buyer lookup
 * with this table, by `vi.mock('../src/app/client-port', () => import('./kit').then((k) => k.clientPort))`.
 */
export const buyers = new Map<string, InvoiceBuyer>();

/** `../src/app/client-port` as the suites replace it: the buyer from {@link buyers}. */
export const clientPort = {
  loadInvoiceBuyer: async (_deps: unknown, _key: unknown, clientId: string): Promise<InvoiceBuyer> => {
    const b = buyers.get(clientId);
    if (!b) throw new NotFoundError('client not found');
    return b;
  },
};

/** A consumer in Berlin, unless `over` says otherwise; answers its client id. */
export function newBuyer(over: Partial<InvoiceBuyer> = {}): string {
  const clientId = newObjectId();
  buyers.set(clientId, {
    clientId,
    name: 'Erika Buyer',
    email: 'erika@example.com',
    address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    taxId: null,
    taxIdType: null,
    taxCountry: 'DE',
    peppolRoutingAddress: null,
    ...over,
  });
  return clientId;
}

/**
 * A store on a new database (`database`, or `<prefix>_<random>`) with billing's collections; drop
 * it with {@link dropStore}.
 */
export async function billingStore(prefix: string, database = testDatabase(prefix)): Promise<DroppableStore> {
  const store = await createStore({ url: PG_URL, database });
  for (const c of collections) await store.ensureCollection(c);
  return store;
}

/** What every billing use case needs: the store, the development keyring, a clock, a silent logger. */
export function billingDeps(store: DroppableStore, clock: Clock = systemClock): BillingDeps {
  return {
    store,
    secrets: new SecretBox(DEV_SECRETS_KEYRING),
    clock,
    logger: createLogger({ service: 'billing-test', level: 'silent' }),
  };
}

export async function dropStore(store: DroppableStore | undefined): Promise<void> {
  await store?.dropDatabase();
  await store?.close();
}

const notHere = (what: string) => async (): Promise<never> => Promise.reject(new Error(`no ${what} in this suite`));

/** A checkout that answers a payment link's CreateCheckout (`sent` records the requests). */
export function linkCheckout(sent?: unknown[]): InvoiceDeps['checkout']['createCheckout'] {
  return async (req) => {
    sent?.push(req);
    return {
      id: newObjectId(),
      sessionPublicId: `cs_${randomBytes(8).toString('hex')}`,
      paymentUrl: 'http://localhost:3000/c/x',
      amount: req.amount,
      expiresAt: req.expiresAt,
    };
  };
}

/**
 * Invoice use-case dependencies on `store`: a German seller (VAT ID DE123456789) taxed by the
 * 19 % stand-in engine, every site known, no payment links, transactions, e-mail or documents
 * unless `over` (or `over.checkout` / `over.documents`, merged) brings them.
 */
export function invoiceDeps(
  store: DroppableStore,
  clock: Clock,
  over: Partial<Omit<InvoiceDeps, 'checkout' | 'documents'>> & {
    checkout?: Partial<InvoiceDeps['checkout']>;
    documents?: Partial<InvoiceDeps['documents']>;
  } = {},
): InvoiceDeps {
  const { checkout, documents, ...rest } = over;
  return {
    ...billingDeps(store, clock),
    outbox: new Committer<EventMap>({ store }),
    tax: {
      settings: async () => ({ homeCountry: 'DE', vatId: 'DE123456789', viesEnabled: false }),
      calculate: async (req) => fakeCalculation(req),
    },
    emailOutbox: { send: notHere('e-mail') },
    ...rest,
    checkout: {
      siteExists: async () => true,
      siteBranding: async () => ({ name: 'Shop', primaryColor: null }),
      createCheckout: notHere('payment links'),
      // Invoices from transactions are tested over the mesh (test/mesh/invoices.test.ts).
      transaction: async () => null,
      transactionTax: notHere('transaction tax'),
      ...checkout,
    },
    documents: { renderPdf: notHere('documents'), renderEInvoice: notHere('documents'), ...documents },
  };
}

/** A draft's JSON body for a new buyer ({@link newBuyer}) on a new site: `quantity` × 119.00 EUR (gross) of consulting. */
export function consultingDraft(quantity = 1): string {
  return JSON.stringify({
    siteId: newObjectId(),
    clientId: newBuyer(),
    currency: 'EUR',
    items: [{ description: 'Consulting', quantity, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
  });
}

/** A transaction paying an invoice through one of its payment links, as checkout's events name it. */
export interface LinkTransaction {
  transactionId: string;
  checkoutId: string;
  amount: number;
}

/** An event of `t` paying `invoiceId` as the bus delivers it at `at`: a new site, euros, then `data`. */
function transactionEvent<D>(
  type: string,
  id: string,
  at: string,
  key: OrgKey,
  invoiceId: string,
  t: LinkTransaction,
  data: D,
) {
  return {
    id,
    type,
    version: 1,
    occurredAt: at,
    data: {
      ...key,
      siteId: newObjectId(),
      transactionId: t.transactionId,
      currency: 'EUR',
      checkoutId: t.checkoutId,
      invoiceId,
      ...data,
    },
  };
}

/**
 * `checkout.transaction.status_changed` of `t` (of the invoice `invoiceId`) at `at`: completed (1)
 * from pending, any other status from completed; a new site and event id unless `over` or `id` say.
 */
export function statusEvent(
  at: string,
  key: OrgKey,
  invoiceId: string,
  t: LinkTransaction,
  status: number,
  id = randomBytes(8).toString('hex'),
  over: Partial<TransactionStatusChanged> = {},
): EventEnvelope<TransactionStatusChanged> {
  return transactionEvent(Subjects.transactionStatusChanged, id, at, key, invoiceId, t, {
    status,
    previousStatus: status === 1 ? 0 : 1,
    subState: null,
    externalReference: null,
    ipnUrl: null,
    sequence: status === 1 ? 2 : 3,
    changedAt: at,
    amount: t.amount,
    ...over,
  }) as EventEnvelope<TransactionStatusChanged>;
}

/**
 * `checkout.transaction.refunded` of a refund of `t` at `at` (event id from transaction and refund,
 * as checkout makes it), `refundedTotal` of it refunded so far; a new site unless `over` says.
 */
export function refundEvent(
  at: string,
  key: OrgKey,
  invoiceId: string,
  t: LinkTransaction,
  refund: { refundId: string; amount: number; refundedTotal: number },
  over: Partial<TransactionRefunded> = {},
): EventEnvelope<TransactionRefunded> {
  const id = `refund-${t.transactionId}-${refund.refundId}`;
  return transactionEvent(Subjects.transactionRefunded, id, at, key, invoiceId, t, {
    ...refund,
    transactionAmount: t.amount,
    paidAt: at,
    refundedAt: at,
    ...over,
  });
}

/** `checkout.chargeback.resolved` of the whole of `t` at `at`; a new site and event id unless `over` or `id` say. */
export function chargebackEvent(
  at: string,
  key: OrgKey,
  invoiceId: string,
  t: LinkTransaction,
  chargeback: { chargebackId: string; outcome: ChargebackResolved['outcome'] },
  id = randomBytes(8).toString('hex'),
  over: Partial<ChargebackResolved> = {},
): EventEnvelope<ChargebackResolved> {
  return transactionEvent(Subjects.chargebackResolved, id, at, key, invoiceId, t, {
    ...chargeback,
    amount: t.amount,
    resolvedAt: at,
    paidAt: at,
    transactionAmount: t.amount,
    ...over,
  });
}
