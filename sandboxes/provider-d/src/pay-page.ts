import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from './errors';
import type { Order, Sandbox } from './sandbox';

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
  body { font-family: system-ui, sans-serif; background: #f5f7fa; margin: 0; padding: 2rem 1rem; color: #1c1c1c; }
  main { max-width: 26rem; margin: 0 auto; background: #fff; border-radius: 8px; padding: 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1rem; font-weight: 500; color: #555; margin: 0 0 .25rem; }
  .amount { font-size: 2rem; font-weight: 600; margin: 0 0 1rem; }
  .meta { font-size: .8rem; color: #666; word-break: break-all; }
  button { width: 100%; margin-top: .75rem; font-size: 1rem; padding: .75rem; border-radius: 24px; border: 0; background: #ffc439; color: #111; cursor: pointer; }
  button.secondary { background: #e8e8e8; }
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

/** The buyer's approval page: pay with a wallet that captures, one whose capture declines, or cancel. */
export function renderPayPage(o: Order): string {
  const a = o.unit.amount;
  const parts = [
    `<h1>${escapeHtml(o.unit.description ?? 'Order')}</h1>`,
    `<p class="amount" data-value="${escapeHtml(a.value)}" data-currency="${escapeHtml(a.currency_code)}">${escapeHtml(a.value)} <small>${escapeHtml(a.currency_code)}</small></p>`,
  ];
  if (o.status === 'CREATED') {
    const token = encodeURIComponent(o.id);
    parts.push(
      `<form method="post" action="/checkoutnow?token=${token}"><input type="hidden" name="action" value="approve"><button type="submit" id="approve">Pay Now</button></form>`,
      `<form method="post" action="/checkoutnow?token=${token}"><input type="hidden" name="action" value="decline"><button type="submit" id="decline" class="secondary">Pay with a card that will be declined</button></form>`,
      `<form method="post" action="/checkoutnow?token=${token}"><input type="hidden" name="action" value="cancel"><button type="submit" id="cancel" class="secondary">Cancel and return to merchant</button></form>`,
    );
  } else {
    parts.push(`<p>This order is <strong>${escapeHtml(o.status)}</strong>.</p>`);
  }
  parts.push(
    `<p class="meta">${escapeHtml(o.id)} · status <span id="status">${escapeHtml(o.status)}</span> · sandbox</p>`,
  );
  return layout(`Pay ${a.value} ${a.currency_code}`, parts.join('\n'));
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

function withParams(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/**
 * `GET /checkoutnow?token=<order id>` shows the page; `POST` with `action=approve|decline|cancel`
 * approves the order (declining funding makes the merchant's capture decline) and sends the buyer
 * to the return URL with `token` and `PayerID`, or to the cancel URL with `token`.
 */
export function payPageRoutes(app: FastifyInstance, sandbox: Sandbox): void {
  const find = (id: string | undefined): Order | null => {
    try {
      return id ? sandbox.order(id) : null;
    } catch {
      return null;
    }
  };

  app.get<{ Querystring: { token?: string } }>('/checkoutnow', async (req, reply) => {
    const o = find(req.query.token);
    if (!o) return html(reply, 404, message('Order not found', 'No such order exists in this sandbox.'));
    return html(reply, 200, renderPayPage(o));
  });

  app.post<{ Querystring: { token?: string } }>('/checkoutnow', async (req, reply) => {
    const o = find(req.query.token);
    if (!o) return html(reply, 404, message('Order not found', 'No such order exists in this sandbox.'));
    const action = req.body !== null && typeof req.body === 'object' ? Reflect.get(req.body, 'action') : undefined;
    if (action !== 'approve' && action !== 'decline' && action !== 'cancel')
      return html(reply, 400, message('Invalid request', 'Choose approve, decline or cancel.'));
    if (action === 'cancel') {
      if (o.cancelUrl)
        return reply
          .code(303)
          .header('location', withParams(o.cancelUrl, { token: o.id }))
          .header('cache-control', 'no-store')
          .send();
      return html(reply, 200, message('Cancelled', 'You cancelled this payment.'));
    }
    try {
      sandbox.approve(o, action === 'approve' ? 'ok' : 'declined');
    } catch (err) {
      if (err instanceof ApiError) return html(reply, 409, renderPayPage(o));
      throw err;
    }
    if (o.returnUrl)
      return reply
        .code(303)
        .header('location', withParams(o.returnUrl, { token: o.id, PayerID: o.payerId ?? '' }))
        .header('cache-control', 'no-store')
        .send();
    return html(reply, 200, renderPayPage(o));
  });
}
