import type { BillingRequest, Flow, Mandate, Payment, Refund } from './sandbox';

/** JSON of the resources as the provider answers them (field names as in the `gocardless-nodejs` types). */
export function paymentView(p: Payment) {
  return {
    id: p.id,
    created_at: p.createdAt,
    charge_date: p.chargeDate,
    amount: p.amount,
    amount_refunded: p.amountRefunded,
    currency: p.currency,
    description: p.description,
    reference: null,
    status: p.status,
    scheme: null,
    retry_if_possible: false,
    metadata: p.metadata,
    links: { creditor: 'CR000SANDBOX', ...(p.mandateId ? { mandate: p.mandateId } : {}) },
  };
}

export function mandateView(m: Mandate) {
  return {
    id: m.id,
    created_at: m.createdAt,
    status: m.status,
    scheme: m.scheme,
    reference: `SBX-${m.id}`,
    metadata: m.metadata,
    links: { creditor: 'CR000SANDBOX' },
  };
}

export function billingRequestView(br: BillingRequest) {
  return {
    id: br.id,
    created_at: br.createdAt,
    status: br.status,
    metadata: br.metadata,
    mandate_request: { currency: br.currency, scheme: br.scheme },
    links: {
      creditor: 'CR000SANDBOX',
      ...(br.paymentId ? { payment_request_payment: br.paymentId } : {}),
      ...(br.mandateId ? { mandate_request_mandate: br.mandateId } : {}),
    },
  };
}

export function flowView(f: Flow, base: string) {
  return {
    id: f.id,
    created_at: f.createdAt,
    authorisation_url: `${base}/flow/${f.id}`,
    expires_at: new Date(Date.parse(f.createdAt) + 7 * 24 * 3600_000).toISOString(),
    redirect_uri: f.redirectUri,
    exit_uri: f.exitUri,
    links: { billing_request: f.billingRequestId },
  };
}

export function refundView(r: Refund) {
  return {
    id: r.id,
    created_at: r.createdAt,
    amount: r.amount,
    currency: r.currency,
    reference: r.reference,
    metadata: r.metadata,
    links: { payment: r.paymentId },
  };
}
