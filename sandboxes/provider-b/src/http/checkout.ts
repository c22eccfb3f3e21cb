import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../errors';
import { amountOf } from '../domain/money';
import { FINAL_STATUSES, type FinalStatus, type Payment, type Sandbox } from '../domain/sandbox';

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
  body { font-family: system-ui, sans-serif; background: #f2f4f7; margin: 0; padding: 2rem 1rem; color: #1c1c1c; }
  main { max-width: 26rem; margin: 0 auto; background: #fff; border-radius: 8px; padding: 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1rem; font-weight: 500; color: #555; margin: 0 0 .25rem; }
  .amount { font-size: 2rem; font-weight: 600; margin: 0 0 1rem; }
  .meta { font-size: .8rem; color: #666; word-break: break-all; }
  label { display: block; padding: .4rem 0; }
  button { width: 100%; margin-top: 1rem; font-size: 1rem; padding: .75rem; border-radius: 6px; border: 0; background: #0a5cf5; color: #fff; cursor: pointer; }
`;

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

/** Test-mode checkout: the buyer picks the status the payment gets, as on the provider's test page. */
export function renderCheckout(p: Payment): string {
  const amount = amountOf(p.amount, p.currency);
  const parts = [
    `<h1>${escapeHtml(p.description)}</h1>`,
    `<p class="amount" data-value="${escapeHtml(amount.value)}" data-currency="${escapeHtml(p.currency)}">${escapeHtml(amount.value)} <small>${escapeHtml(p.currency)}</small></p>`,
  ];
  if (p.status === 'open') {
    parts.push(
      `<form method="post" action="/checkout/${encodeURIComponent(p.id)}">`,
      ...FINAL_STATUSES.map(
        (s, i) => `<label><input type="radio" name="status" value="${s}"${i === 0 ? ' checked' : ''}> ${s}</label>`,
      ),
      '<button type="submit">Continue</button>',
      '</form>',
    );
  } else {
    parts.push(`<p>This payment is <strong>${escapeHtml(p.status)}</strong>.</p>`);
    if (p.redirectUrl) parts.push(`<p><a href="${escapeHtml(p.redirectUrl)}">Return to the merchant</a></p>`);
  }
  parts.push(
    `<p class="meta">${escapeHtml(p.id)} · status <span id="status">${escapeHtml(p.status)}</span> · ${p.mode} mode · sandbox</p>`,
  );
  return layout(`Pay ${amount.value} ${p.currency}`, parts.join('\n'));
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

/** Buyer-facing checkout: GET shows the page, POST `status=paid|failed|canceled|expired` decides and redirects back. */
export function checkoutRoutes(app: FastifyInstance, sandbox: Sandbox): void {
  const find = (id: string): Payment | null => {
    try {
      return sandbox.payment(id);
    } catch {
      return null;
    }
  };

  app.get<{ Params: { id: string } }>('/checkout/:id', async (req, reply) => {
    const p = find(req.params.id);
    if (!p)
      return html(reply, 404, message('Payment not found', `No payment ${req.params.id} exists in this sandbox.`));
    return html(reply, 200, renderCheckout(p));
  });

  app.post<{ Params: { id: string } }>('/checkout/:id', async (req, reply) => {
    const p = find(req.params.id);
    if (!p)
      return html(reply, 404, message('Payment not found', `No payment ${req.params.id} exists in this sandbox.`));
    const raw = req.body !== null && typeof req.body === 'object' ? Reflect.get(req.body, 'status') : undefined;
    const status = FINAL_STATUSES.find((s): s is FinalStatus => s === raw);
    if (!status) return html(reply, 400, message('Invalid request', `Choose a status: ${FINAL_STATUSES.join(', ')}.`));
    try {
      sandbox.complete(p, status);
    } catch (err) {
      if (err instanceof ApiError) return html(reply, 409, renderCheckout(p));
      throw err;
    }
    if (p.redirectUrl)
      return reply.code(303).header('location', p.redirectUrl).header('cache-control', 'no-store').send();
    return html(reply, 200, renderCheckout(p));
  });
}
