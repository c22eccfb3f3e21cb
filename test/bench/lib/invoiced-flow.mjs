// The invoiced flow: a pay flow of a merchant set up like `pnpm bootstrap`'s walk-through
// organization (German seller, automatic invoices), its automatic invoice, then the invoice
// e-mailed (PDF rendered by the documents service in Chromium, sent to the mail catcher). The same
// flow as the invoiced flow of the cost budget test (test/mesh/cost-budget.test.ts).
import { connect } from 'nats';
import { bootstrap, WALKTHROUGH_INVOICING, WALKTHROUGH_TAX_PATCHES } from '../../../deploy/local/bootstrap-lib.mjs';
import { json, payFlow } from './bench-mesh.mjs';

/** Values by key, waited for before or after they arrive (`set` early, `wait` later, or the other way). */
function keyed(timeoutMs, what) {
  const arrived = new Map();
  const waiters = new Map();
  return {
    set(key, value) {
      const w = waiters.get(key);
      if (w) w(value);
      else arrived.set(key, value);
    },
    wait(key) {
      if (arrived.has(key)) {
        const value = arrived.get(key);
        arrived.delete(key);
        return Promise.resolve(value);
      }
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => {
          waiters.delete(key);
          reject(new Error(`no ${what} for ${key} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.set(key, (value) => {
          clearTimeout(t);
          waiters.delete(key);
          resolve(value);
        });
      });
    },
  };
}

/**
 * Sets up the invoicing merchant on the bench mesh `ctx` and answers `{ flow(n), readInvoice(id),
 * checkMail(flows), stop() }`. The bench learns of the automatic invoice and of the e-mail's
 * delivery from the mesh's own events (`billing.invoice.issued`, `notifications.email.*`), read by
 * a plain NATS subscription that costs the services nothing. Billing announces no event when it
 * records the invoice's payment, so the bench reads the invoice until it is paid (`GET
 * /invoices/:id`, counted as `lookups`). The mail catcher stores a message before it answers the
 * SMTP DATA, so a delivered e-mail is in it; `checkMail` looks at the messages after the measured
 * flows. Throws when the mail catcher does not run.
 */
export async function startInvoicedFlows(ctx, { natsUrl }) {
  const mailUrl = ctx.mesh.sandboxUrls['sandbox-mail'];
  if (!mailUrl) throw new Error('the mail catcher did not start with the mesh (is sandboxes/mail built?)');
  const boot = await bootstrap({
    adminBaseUrl: ctx.mesh.adminBaseUrl,
    publicBaseUrl: ctx.mesh.publicBaseUrl,
    systemApiKey: ctx.systemApiKey,
    providerASandboxUrl: ctx.mesh.sandboxUrls['sandbox-provider-a'],
  });
  const providerId = boot.providers?.provider_a?.id;
  if (!providerId) throw new Error('bootstrap created no provider_a record for the invoicing merchant');
  const admin = (method, path, body) => json(method, `${ctx.mesh.adminBaseUrl}${path}`, { token: boot.apiKey, body });
  for (const patch of WALKTHROUGH_TAX_PATCHES) await admin('PUT', '/organizations/settings/tax', patch);
  await admin('PUT', '/organizations/settings/invoicing', WALKTHROUGH_INVOICING);
  ctx.receiver.addSecret(boot.webhookSigningSecret);
  const merchant = { ...ctx, boot, providerId };

  const invoices = keyed(ctx.flowTimeoutMs, 'automatic invoice');
  const emails = keyed(ctx.flowTimeoutMs, 'invoice e-mail delivered or failed');
  const nc = await connect({ servers: natsUrl });
  const listen = (subject, onData) => {
    const sub = nc.subscribe(`${ctx.namespace}.${subject}`);
    void (async () => {
      for await (const m of sub) {
        try {
          onData(JSON.parse(new TextDecoder().decode(m.data)).data ?? {});
        } catch {
          // not an event envelope: not ours to read
        }
      }
    })();
  };
  listen('billing.invoice.issued', (d) => d.transactionId && invoices.set(d.transactionId, d.invoiceId));
  listen('notifications.email.*', (d) => d.source?.kind === 'invoice' && emails.set(d.source.id, d));

  const stamp = Date.now().toString(36);
  const readInvoice = (id) => admin('GET', `/invoices/${id}`);
  return {
    boot,
    readInvoice,
    /**
     * One invoiced flow. Resolves `{ ms, stages: { pay, invoice, email }, lookups, invoiceId, email }`:
     * pay = the pay flow up to the verified IPN, invoice = from there until the invoice reads as
     * paid, email = from the send request until notifications-ipn announces the e-mail delivered
     * to the mail catcher (`notifications.email.delivered`).
     */
    async flow(n) {
      const email = `invoiced-${stamp}-${n}@example.com`;
      const t0 = performance.now();
      const paid = await payFlow(merchant, `invoiced-${n}`, 0, email);
      const t1 = performance.now();
      const invoiceId = await invoices.wait(paid.transactionId);
      let lookups = 0;
      for (;;) {
        lookups += 1;
        const invoice = await readInvoice(invoiceId);
        if (invoice.status === 'paid') break;
        if (performance.now() - t1 > ctx.flowTimeoutMs)
          throw new Error(`invoice ${invoiceId} still ${invoice.status} after ${ctx.flowTimeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const t2 = performance.now();
      const delivered = emails.wait(invoiceId);
      await admin('POST', `/invoices/${invoiceId}/send-email`, {});
      const settled = await delivered;
      if (settled.state !== 'sent') throw new Error(`invoice e-mail ${settled.state}: ${settled.detail}`);
      const t3 = performance.now();
      return { ms: t3 - t0, stages: { pay: t1 - t0, invoice: t2 - t1, email: t3 - t2 }, lookups, invoiceId, email };
    },
    /** Which of `flows` (results of `flow`) have no message with a PDF attached in the mail catcher. */
    async checkMail(flows) {
      const res = await fetch(`${mailUrl}/_sandbox/messages`);
      if (!res.ok) throw new Error(`mail catcher answered ${res.status}`);
      const items = (await res.json()).items;
      return flows.filter(
        (f) =>
          !items.some(
            (m) => m.envelope.to.includes(f.email) && m.attachments.some((a) => a.contentType === 'application/pdf'),
          ),
      );
    },
    async stop() {
      await nc.close().catch(() => undefined);
    },
  };
}
