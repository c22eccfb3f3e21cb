import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { ROOT } from '../../deploy/local/supervisor.mjs';
import {
  WALKTHROUGH_INVOICING,
  WALKTHROUGH_TAX_PATCHES,
  type BootstrapResult,
} from '../../deploy/local/bootstrap-lib.mjs';
import {
  BUDGET_COUNTERS,
  COUNTER_NAMES,
  CostCounterReader,
  costBetween,
  sumCosts,
  type CounterName,
  type FlowCost,
} from '../support/cost-counters';
import { IpnReceiver } from '../support/ipn-receiver';
import { MailCatcherClient } from '../support/mail-catcher';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

const BUDGET_FILE = join(ROOT, 'test', 'mesh', 'cost-budget.json');
/**
 * A service's budget may list counters under this key whose work is group-committed (items that
 * meet while a write is under way share the next one): their count may differ between flows.
 */
const GROUP_COMMITTED = 'groupCommitted';
/** Pay flows measured one by one after a warm-up flow; each must cost the same. */
const PAY_FLOWS = 5;

/**
 * Background timers would count whatever work of theirs falls into a measurement: the relay's
 * safety-net poll, the expiry, reconciliation and ledger passes, the IPN and e-mail schedulers'
 * polls (flows wake them), the tax service's rate-book revalidation and the outbox marks' own
 * statement (OUTBOX_MARK_DELAY_MS) are set far beyond the
 * length of this test, so only the flows' own work is counted.
 */
const QUIET_ENV = {
  OUTBOX_POLL_INTERVAL_MS: '3600000',
  // A published event's mark rides with the service's next statement that is sent anyway (under
  // load, within the 250 ms default); never on a timer of its own here, so where it lands is
  // deterministic: each flow carries the marks of the events published since the last one.
  OUTBOX_MARK_DELAY_MS: '3600000',
  EXPIRY_INTERVAL_MS: '3600000',
  SESSION_EXPIRY_INTERVAL_MS: '3600000',
  RECONCILE_INTERVAL_MS: '3600000',
  LEDGER_REBUILD_POLL_MS: '600000',
  IPN_POLL_INTERVAL_MS: '3600000',
  EMAIL_POLL_INTERVAL_MS: '3600000',
  TAX_RATE_BOOK_CACHE_TTL_MS: '300000',
  // The OSS threshold flag (two reads of the year's ledger) is reused for 5 s by default: a slow
  // flow on a loaded machine would count its renewal.
  TAX_OSS_FLAG_TTL_MS: '300000',
  // No ECB rate fetches (and their retries) inside a measured flow.
  ECB_RATES_INTERVAL_MS: '0',
};

/**
 * gateway-admin records an API key's `lastUsedAt` at most once a minute (one read and one write,
 * whichever request comes first): a cost of the minute, not of a flow. Flows are measured with a
 * key first used less than this long ago, so that write never falls into a measurement.
 */
const KEY_FRESH_MS = 20_000;
const KEY_RESOLUTION_MS = 60_000;

type FlowKind = 'pay' | 'invoiced';
const FLOW_LABEL: Record<FlowKind, string> = { pay: 'pay flow', invoiced: 'invoiced flow' };

/** test/mesh/cost-budget.json: flow kind -> service -> counter -> budget; a `why` note on each level. */
type BudgetFile = Record<string, unknown>;
const objectAt = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};

interface Merchant {
  boot: BootstrapResult;
  providerId: string;
  apiKey: string;
  /** When the key in use was first used (its `lastUsedAt` is at least this recent). */
  keyUsedAt: number;
}

const BILLING = { name: 'Buyer', line1: 'Main St 1', city: 'Berlin', postalCode: '10115', country: 'DE' };

describe('cost budget: what a pay flow and an invoiced flow cost each service (test/mesh/cost-budget.json)', () => {
  const reader = new CostCounterReader();
  const receiver = new IpnReceiver();
  let mesh: TestMesh;
  let catcher: MailCatcherClient;
  let ipnBase: string;
  let payer: Merchant;
  let invoicer: Merchant;

  const admin = (m: Merchant, method: string, path: string, body?: unknown) =>
    api(method, `${mesh.adminBaseUrl}${path}`, { token: m.apiKey, ...(body !== undefined ? { body } : {}) });

  async function merchant(boot: BootstrapResult): Promise<Merchant> {
    const providerId = boot.providers?.provider_a?.id;
    if (!providerId) throw new Error('bootstrap created no provider_a record (is the sandbox built?)');
    return { boot, providerId, apiKey: boot.apiKey, keyUsedAt: 0 };
  }

  /** Outside a measurement: a new key with the same grants when the one in use is not fresh. */
  async function freshKey(m: Merchant): Promise<void> {
    if (Date.now() - m.keyUsedAt < KEY_FRESH_MS) return;
    const path = `/organizations/${m.boot.organizationId}/api-keys`;
    const current = (await admin(m, 'GET', `${path}?limit=100`)).body.items.find((k: { prefix: string }) =>
      m.apiKey.startsWith(k.prefix),
    );
    const created = await admin(m, 'POST', path, {
      name: `cost budget ${Date.now()}`,
      mode: 'live',
      scopes: current.scopes,
      role: current.role,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    m.apiKey = created.body.token as string;
    m.keyUsedAt = Date.now();
    expect((await admin(m, 'GET', '/sites')).status).toBe(200);
    // That first use records the key's lastUsedAt, which drops gateway-admin's cached API keys
    // (collections declared cached); one more request after it fills the cache again, so every
    // measured flow finds the key there.
    await reader.quiet(mesh);
    expect((await admin(m, 'GET', '/sites')).status).toBe(200);
  }

  /** Runs `flow` between two quiet points and answers what the mesh did in between. */
  async function measure(m: Merchant, flow: () => Promise<void>): Promise<FlowCost> {
    await freshKey(m);
    const before = await reader.quiet(mesh);
    await flow();
    const after = await reader.quiet(mesh);
    if (Date.now() - m.keyUsedAt >= KEY_RESOLUTION_MS)
      throw new Error(
        'a measurement took so long that the API key may have been touched in it; the counts would not be comparable',
      );
    return costBetween(before, after);
  }

  /**
   * One pay flow as `pnpm bench` runs it: the merchant creates a checkout (Admin API), the buyer
   * reads it and starts a transaction (Main Backend), pays on the provider_a sandbox's page, the
   * sandbox's webhook completes the transaction (status 1) and the merchant's receiver gets the
   * signed IPN. Answers the transaction.
   */
  async function payFlow(m: Merchant, tag: string, email: string): Promise<string> {
    const ipnPath = `/ipn/${tag}`;
    const checkout = await admin(m, 'POST', `/checkouts/${m.boot.siteId}/create`, {
      amount: 1999,
      currency: 'EUR',
      email,
      externalReference: `cost-${tag}`,
      returnUrl: 'https://shop.example/return/{transactionId}',
      cancelUrl: 'https://shop.example/cancel/{transactionId}',
      ipnUrl: `${ipnBase}${ipnPath}`,
      items: [
        {
          name: 'Item',
          description: 'cost budget',
          quantity: 1,
          unitPrice: 1999,
          vatRate: 19,
          itemType: 'digital_service',
        },
      ],
    });
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(200);
    const read = await api('GET', `${mesh.publicBaseUrl}/checkouts/${checkout.body.sessionPublicId}`, {
      headers: { origin: 'https://shop.example' },
    });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const tx = await api('POST', `${mesh.publicBaseUrl}/transactions/create`, {
      body: {
        sessionPublicId: checkout.body.sessionPublicId,
        providerId: m.providerId,
        billingAddress: { ...BILLING, email },
      },
    });
    expect(tx.status, JSON.stringify(tx.body)).toBe(200);
    const transactionId = tx.body.transactionId as string;
    const pay = await fetch(tx.body.redirectUrl as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=pay',
      redirect: 'manual',
    });
    await pay.arrayBuffer();
    expect(pay.status).toBe(303);
    expect(new URL(pay.headers.get('location') ?? '').searchParams.get('redirect_status')).toBe('succeeded');
    const ipn = await eventually(
      () =>
        receiver.at(ipnPath).find((r) => (JSON.parse(r.rawBody.toString('utf8')) as { status: number }).status === 1),
      30_000,
      50,
    );
    expect(verifyIpn(m.boot.webhookSigningSecret, ipn.headers as Record<string, string>, ipn.rawBody).valid).toBe(true);
    expect(JSON.parse(ipn.rawBody.toString('utf8'))).toMatchObject({ id: transactionId, status: 1 });
    return transactionId;
  }

  /**
   * One invoiced flow, measured in two phases: a pay flow whose completed transaction billing
   * invoices automatically (client from the billing e-mail, draft, tax, issue, payment recorded);
   * then, after the invoice is looked up (not counted), its e-mail: PDF rendered by documents,
   * queued with notifications-ipn, sent to the mail catcher, the send settled on the invoice.
   */
  async function invoicedFlow(m: Merchant, tag: string, measured: boolean): Promise<FlowCost | undefined> {
    const email = `buyer-${tag}-${Date.now()}@example.test`;
    let transactionId = '';
    const phases: FlowCost[] = [];
    const run = async (flow: () => Promise<void>) => {
      if (measured) phases.push(await measure(m, flow));
      else await flow();
    };
    await run(async () => {
      transactionId = await payFlow(m, tag, email);
    });
    await reader.quiet(mesh);
    const invoice = await eventually(async () => {
      const items = (await admin(m, 'GET', '/invoices?limit=100')).body.items as Array<{
        id: string;
        status: string;
        sourceTransactionId: string | null;
      }>;
      return items.find((i) => i.sourceTransactionId === transactionId && i.status === 'paid');
    }, 20_000);
    await run(async () => {
      const sent = await admin(m, 'POST', `/invoices/${invoice.id}/send-email`, {});
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const [message] = await eventually(async () => {
        const got = await catcher.to(email);
        return got.length > 0 ? got : undefined;
      }, 30_000);
      if (!message) throw new Error('no invoice e-mail');
      expect(message.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
    });
    return measured ? sumCosts(phases) : undefined;
  }

  beforeAll(async () => {
    ipnBase = await receiver.start();
    mesh = await startTestMesh({ env: QUIET_ENV, onLine: reader.onLine });
    const mail = mesh.sandboxUrls['sandbox-mail'];
    if (!mail) throw new Error('the mail catcher did not start with the mesh');
    catcher = new MailCatcherClient(mail);
    payer = await merchant(await mesh.bootstrap());
    // The walk-through organization of `pnpm bootstrap`: German seller, paid checkouts invoiced automatically.
    invoicer = await merchant(await mesh.bootstrap());
    for (const [path, body] of [
      ...WALKTHROUGH_TAX_PATCHES.map((patch) => ['/organizations/settings/tax', patch] as const),
      ['/organizations/settings/invoicing', WALKTHROUGH_INVOICING] as const,
    ]) {
      const res = await admin(invoicer, 'PUT', path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });

  afterAll(async () => {
    await receiver.stop();
    await mesh?.dispose();
  });

  it('counts store statements, rows written, gRPC calls and JetStream messages per flow and service within the budget', async () => {
    // Warm-up: first uses fill per-process caches (origins, rate books, prepared statements).
    await payFlow(payer, 'pay-warm-up', 'buyer@example.com');
    const pays: FlowCost[] = [];
    for (let n = 1; n <= PAY_FLOWS; n++)
      pays.push(await measure(payer, async () => void (await payFlow(payer, `pay-${n}`, 'buyer@example.com'))));
    await invoicedFlow(invoicer, 'invoiced-warm-up', false);
    const invoiced = await invoicedFlow(invoicer, 'invoiced', true);
    if (!invoiced) throw new Error('the invoiced flow was not measured');

    const budget = JSON.parse(readFileSync(BUDGET_FILE, 'utf8')) as BudgetFile;
    const failures: string[] = [];
    const hints: string[] = [];
    const lines: string[] = [];
    const WIDTH = Math.max(...COUNTER_NAMES.map((k) => k.length)) + 2;
    const check = (kind: FlowKind, costs: FlowCost[]) => {
      const flowBudget = objectAt(budget[kind]);
      for (const service of Object.keys(flowBudget)) {
        if (service !== 'why' && !(service in costs[0]!.counts))
          failures.push(`${kind}: budget names an unknown service "${service}"`);
      }
      lines.push(
        `${FLOW_LABEL[kind]} (${costs.length === 1 ? 'one flow' : `each of ${costs.length} flows`}; count/budget, * over, - under)`,
      );
      lines.push(['service'.padEnd(18), ...COUNTER_NAMES.map((k) => k.padStart(WIDTH))].join(''));
      for (const service of Object.keys(costs[0]!.counts)) {
        const serviceBudget = objectAt(flowBudget[service]);
        for (const key of Object.keys(serviceBudget)) {
          if (key !== 'why' && key !== GROUP_COMMITTED && !(COUNTER_NAMES as string[]).includes(key))
            failures.push(`${kind}: ${service}: budget names an unknown counter "${key}"`);
        }
        const grouped = Array.isArray(serviceBudget[GROUP_COMMITTED])
          ? (serviceBudget[GROUP_COMMITTED] as unknown[])
          : [];
        const cells = COUNTER_NAMES.map((k: CounterName) => {
          const values = costs.map((c) => c.counts[service]![k]);
          const count = Math.max(...values);
          const limit = typeof serviceBudget[k] === 'number' ? serviceBudget[k] : 0;
          const what = `${service}: ${BUDGET_COUNTERS[k]} per ${FLOW_LABEL[kind]}`;
          // A group-committed count is at most one per item, fewer when items meet under way: its
          // budget is the count of a flow whose items all went alone (the most), checked as a ceiling.
          if (new Set(values).size > 1 && !grouped.includes(k))
            failures.push(
              `${what} differs between flows (${values.join(', ')}): the count is not deterministic; made of: ${costs
                .map((c) =>
                  Object.entries(c.parts[service] ?? {})
                    .sort(([a], [b]) => a.localeCompare(b))
                    .map(([part, n]) => `${part} ${n}`)
                    .join(', '),
                )
                .join(' | ')}`,
            );
          if (count > limit) failures.push(`${what} ${count} > budget ${limit}`);
          else if (count < limit)
            hints.push(`${what} ${count} < budget ${limit}: lower the budget line in test/mesh/cost-budget.json`);
          const mark = count > limit ? '*' : count < limit ? '-' : ' ';
          return `${count}/${limit}${mark}`.padStart(WIDTH);
        });
        lines.push([service.padEnd(18), ...cells].join(''));
      }
      const parts = costs[0]!.parts;
      lines.push(costs.length === 1 ? '  made of:' : '  made of (the first of them):');
      for (const [service, p] of Object.entries(parts)) {
        const entries = Object.entries(p).sort(([a], [b]) => a.localeCompare(b));
        if (entries.length) lines.push(`    ${service}: ${entries.map(([key, n]) => `${key} ${n}`).join(', ')}`);
      }
    };
    check('pay', pays);
    check('invoiced', [invoiced]);
    console.log(
      [
        'cost budget (test/mesh/cost-budget.json)',
        ...lines,
        ...(hints.length ? ['hints:', ...hints.map((h) => `  ${h}`)] : []),
      ].join('\n'),
    );
    expect(failures, failures.join('\n')).toEqual([]);
  });
});
