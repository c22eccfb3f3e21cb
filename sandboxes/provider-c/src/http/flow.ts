import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../errors';
import {
  PAYER_DECISIONS,
  type BillingRequest,
  type Flow,
  type PayerDecision,
  type Payment,
  type Sandbox,
} from '../domain/sandbox';

/** The page is self-contained: inline styles, no scripts, no external assets. */
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; base-uri 'none'; frame-ancestors 'none'";

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f4f1ec; margin: 0; padding: 2rem 1rem; color: #1c1c1c; }
  main { max-width: 26rem; margin: 0 auto; background: #fff; border-radius: 8px; padding: 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1rem; font-weight: 500; color: #555; margin: 0 0 .25rem; }
  .amount { font-size: 2rem; font-weight: 600; margin: 0 0 1rem; }
  .meta { font-size: .8rem; color: #666; word-break: break-all; }
  label { display: block; padding: .4rem 0; }
  button { width: 100%; margin-top: 1rem; font-size: 1rem; padding: .75rem; border-radius: 6px; border: 0; background: #1c1c1c; color: #fff; cursor: pointer; }
`;

const LABELS: Record<PayerDecision, string> = {
  confirmed: 'Set up the Direct Debit and pay (collection confirmed)',
  failed: 'Set up the Direct Debit; the bank refuses the collection (failed)',
  cancelled: 'Leave without setting up (cancelled)',
};

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body>
</html>
`;
}

const money = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

/** Sandbox authorisation page: the payer sets up the mandate and decides what the collection does. */
export function renderFlow(f: Flow, br: BillingRequest, p: Payment): string {
  const parts = [
    `<h1>${escapeHtml(p.description || 'Direct Debit')}</h1>`,
    `<p class="amount" data-amount="${p.amount}" data-currency="${escapeHtml(p.currency)}">${money(p.amount)} <small>${escapeHtml(p.currency)}</small></p>`,
  ];
  if (br.status === 'pending' || br.status === 'ready_to_fulfil') {
    parts.push(
      `<form method="post" action="/flow/${encodeURIComponent(f.id)}">`,
      '<label>Account holder <input name="account_holder_name" value="Sandbox Payer"></label>',
      '<label>IBAN <input name="iban" value="DE89370400440532013000"></label>',
      ...PAYER_DECISIONS.map(
        (d, i) =>
          `<label><input type="radio" name="decision" value="${d}"${i === 0 ? ' checked' : ''}> ${LABELS[d]}</label>`,
      ),
      '<button type="submit">Continue</button>',
      '</form>',
    );
  } else {
    parts.push(
      `<p>This request is <strong>${escapeHtml(br.status)}</strong>; the payment is <strong>${escapeHtml(p.status)}</strong>.</p>`,
    );
    const back = br.status === 'cancelled' ? (f.exitUri ?? f.redirectUri) : f.redirectUri;
    if (back) parts.push(`<p><a href="${escapeHtml(back)}">Return to the merchant</a></p>`);
  }
  parts.push(
    `<p class="meta">${escapeHtml(br.id)} · ${escapeHtml(p.id)} · status <span id="status">${escapeHtml(p.status)}</span> · sandbox</p>`,
  );
  return layout(`Pay ${money(p.amount)} ${p.currency} by Direct Debit`, parts.join('\n'));
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header('content-security-policy', PAGE_CSP)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(body);
}

const message = (title: string, text: string) =>
  layout(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>`);

/** Payer-facing flow: GET shows the page, POST `decision=confirmed|failed|cancelled` decides and redirects back. */
export function flowRoutes(app: FastifyInstance, sandbox: Sandbox): void {
  const find = (id: string) => {
    try {
      const f = sandbox.flow(id);
      const br = sandbox.billingRequest(f.billingRequestId);
      return { f, br, p: sandbox.payment(br.paymentId ?? '') };
    } catch {
      return null;
    }
  };

  app.get<{ Params: { id: string } }>('/flow/:id', async (req, reply) => {
    const x = find(req.params.id);
    if (!x)
      return html(reply, 404, message('Not found', `No billing request flow ${req.params.id} exists in this sandbox.`));
    return html(reply, 200, renderFlow(x.f, x.br, x.p));
  });

  app.post<{ Params: { id: string } }>('/flow/:id', async (req, reply) => {
    const x = find(req.params.id);
    if (!x)
      return html(reply, 404, message('Not found', `No billing request flow ${req.params.id} exists in this sandbox.`));
    const raw = req.body !== null && typeof req.body === 'object' ? Reflect.get(req.body, 'decision') : undefined;
    const decision = PAYER_DECISIONS.find((d): d is PayerDecision => d === raw);
    if (!decision) return html(reply, 400, message('Invalid request', `Choose: ${PAYER_DECISIONS.join(', ')}.`));
    try {
      sandbox.decide(x.br, decision);
    } catch (err) {
      if (err instanceof ApiError) return html(reply, 409, renderFlow(x.f, x.br, x.p));
      throw err;
    }
    const back = decision === 'cancelled' ? (x.f.exitUri ?? x.f.redirectUri) : x.f.redirectUri;
    if (back) return reply.code(303).header('location', back).header('cache-control', 'no-store').send();
    return html(reply, 200, renderFlow(x.f, x.br, x.p));
  });
}
