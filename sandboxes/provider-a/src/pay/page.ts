import { formatAmount } from '../domain/money';
import type { PaymentIntent } from '../domain/types';

/** The pay page is self-contained: inline styles, no scripts, no external assets. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; base-uri 'none'; frame-ancestors 'none'";

export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f4f5f7; margin: 0; padding: 2rem 1rem; color: #1a1f36; }
  main { max-width: 26rem; margin: 0 auto; background: #fff; border-radius: 8px; padding: 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1rem; font-weight: 500; color: #697386; margin: 0 0 .25rem; }
  .amount { font-size: 2rem; font-weight: 600; margin: 0 0 1rem; }
  .meta { font-size: .8rem; color: #697386; word-break: break-all; }
  .error { background: #fdecea; color: #8a1c1c; padding: .5rem .75rem; border-radius: 4px; }
  .buttons { display: flex; gap: .75rem; margin-top: 1.25rem; }
  button { flex: 1; font-size: 1rem; padding: .75rem; border-radius: 6px; border: 0; cursor: pointer; }
  button.pay { background: #635bff; color: #fff; }
  button.decline { background: #e3e8ee; color: #1a1f36; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}

export interface PayPageOptions {
  /** Carried in the form so the POST can redirect back. */
  returnUrl: string | null;
}

/** The checkout page: amount, currency and the two outcome buttons while the intent awaits payment. */
export function renderPayPage(intent: PaymentIntent, awaitingPayment: boolean, opts: PayPageOptions): string {
  const amount = formatAmount(intent.amount, intent.currency);
  const parts = [
    `<h1>${escapeHtml(intent.description ?? 'Payment')}</h1>`,
    `<p class="amount" data-amount="${intent.amount}" data-currency="${escapeHtml(intent.currency)}">${escapeHtml(amount)} <small>${escapeHtml(intent.currency.toUpperCase())}</small></p>`,
  ];
  if (intent.last_payment_error) {
    parts.push(`<p class="error">${escapeHtml(intent.last_payment_error.message)} Please try again.</p>`);
  }
  if (awaitingPayment) {
    const hidden = opts.returnUrl
      ? `<input type="hidden" name="return_url" value="${escapeHtml(opts.returnUrl)}">`
      : '';
    parts.push(
      `<form method="post" action="/pay/${encodeURIComponent(intent.id)}">`,
      hidden,
      '<div class="buttons">',
      '<button class="pay" type="submit" name="outcome" value="pay">Pay</button>',
      '<button class="decline" type="submit" name="outcome" value="decline">Decline</button>',
      '</div>',
      '</form>',
    );
  } else {
    parts.push(`<p>This payment is <strong>${escapeHtml(intent.status)}</strong>.</p>`);
    if (opts.returnUrl) parts.push(`<p><a href="${escapeHtml(opts.returnUrl)}">Return to the merchant</a></p>`);
  }
  parts.push(
    `<p class="meta">${escapeHtml(intent.id)} · status <span id="status">${escapeHtml(intent.status)}</span> · sandbox</p>`,
  );
  return layout(`Pay ${amount}`, parts.join('\n'));
}

export function renderMessagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}
