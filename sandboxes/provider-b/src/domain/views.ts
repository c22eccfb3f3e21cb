import { amountOf } from './money';
import { chargedBack, isCancelable, refunded, type Chargeback, type Payment, type Refund } from './sandbox';

const hal = (href: string) => ({ href, type: 'application/hal+json' });
const page = (href: string) => ({ href, type: 'text/html' });

/** The v2 JSON of a payment, as the provider answers it (and as `@mollie/api-client` types it). */
export function paymentView(p: Payment, base: string, embed: ReadonlySet<string> = new Set()) {
  const paid = p.status === 'paid';
  const refundedMinor = refunded(p);
  const chargedBackMinor = chargedBack(p);
  return {
    resource: 'payment',
    id: p.id,
    mode: p.mode,
    createdAt: p.createdAt,
    amount: amountOf(p.amount, p.currency),
    description: p.description,
    method: null,
    metadata: p.metadata,
    status: p.status,
    isCancelable: isCancelable(p),
    ...(p.status === 'open' ? { expiresAt: new Date(Date.parse(p.createdAt) + 15 * 60_000).toISOString() } : {}),
    ...(p.paidAt ? { paidAt: p.paidAt } : {}),
    ...(p.canceledAt ? { canceledAt: p.canceledAt } : {}),
    ...(p.expiredAt ? { expiredAt: p.expiredAt } : {}),
    ...(p.failedAt ? { failedAt: p.failedAt } : {}),
    profileId: 'pfl_sandbox0001',
    sequenceType: 'oneoff',
    redirectUrl: p.redirectUrl,
    webhookUrl: p.webhookUrl,
    ...(paid
      ? {
          amountRefunded: amountOf(refundedMinor, p.currency),
          amountRemaining: amountOf(p.amount - refundedMinor - chargedBackMinor, p.currency),
          ...(p.chargebacks.length ? { amountChargedBack: amountOf(chargedBackMinor, p.currency) } : {}),
        }
      : {}),
    ...(embed.size
      ? {
          _embedded: {
            ...(embed.has('refunds') ? { refunds: p.refunds.map((r) => refundView(r, p, base)) } : {}),
            ...(embed.has('chargebacks') ? { chargebacks: p.chargebacks.map((c) => chargebackView(c, p, base)) } : {}),
          },
        }
      : {}),
    _links: {
      self: hal(`${base}/v2/payments/${p.id}`),
      ...(p.status === 'open' ? { checkout: page(`${base}/checkout/${p.id}`) } : {}),
      dashboard: page(`${base}/checkout/${p.id}`),
      ...(p.refunds.length ? { refunds: hal(`${base}/v2/payments/${p.id}/refunds`) } : {}),
      ...(p.chargebacks.length ? { chargebacks: hal(`${base}/v2/payments/${p.id}/chargebacks`) } : {}),
      documentation: page('https://docs.mollie.com/reference/get-payment'),
    },
  };
}

export function refundView(r: Refund, p: Payment, base: string) {
  return {
    resource: 'refund',
    id: r.id,
    mode: p.mode,
    amount: amountOf(r.amount, p.currency),
    status: r.status,
    createdAt: r.createdAt,
    description: r.description,
    metadata: r.metadata,
    paymentId: p.id,
    _links: {
      self: hal(`${base}/v2/payments/${p.id}/refunds/${r.id}`),
      payment: hal(`${base}/v2/payments/${p.id}`),
      documentation: page('https://docs.mollie.com/reference/get-refund'),
    },
  };
}

export function chargebackView(c: Chargeback, p: Payment, base: string) {
  return {
    resource: 'chargeback',
    id: c.id,
    amount: amountOf(c.amount, p.currency),
    settlementAmount: amountOf(-c.amount, p.currency),
    createdAt: c.createdAt,
    reason: c.reason,
    reversedAt: c.reversedAt,
    paymentId: p.id,
    ...(c.settlementId ? { settlementId: c.settlementId } : {}),
    _links: {
      self: hal(`${base}/v2/payments/${p.id}/chargebacks/${c.id}`),
      payment: hal(`${base}/v2/payments/${p.id}`),
      documentation: page('https://docs.mollie.com/reference/get-chargeback'),
    },
  };
}

export function listView(resource: string, items: unknown[], self: string) {
  return {
    count: items.length,
    _embedded: { [resource]: items },
    _links: { self: hal(self), previous: null, next: null },
  };
}
