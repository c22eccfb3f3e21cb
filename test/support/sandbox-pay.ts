import { expect } from 'vitest';
import { api } from './mesh';

export interface SandboxPayment {
  adminBaseUrl: string;
  publicBaseUrl: string;
  apiKey: string;
  /** The provider_a sandbox's base URL and the organization's provider record there. */
  sandboxUrl: string;
  provider: { id: string; secretKey: string };
  /** Origin the Main Backend call comes from (one of the site's frontend origins). */
  origin: string;
  billingAddress: Record<string, string>;
}

/**
 * Pays a checkout session by card through the provider_a sandbox, as a buyer's front end does:
 * the Main Backend creates the transaction, the sandbox confirms its payment intent. Answers the
 * transaction's id (its status follows from the sandbox's webhook).
 */
export async function payWithSandbox(p: SandboxPayment, sessionPublicId: string): Promise<string> {
  const t = await api('POST', `${p.publicBaseUrl}/transactions/create`, {
    body: { sessionPublicId, providerId: p.provider.id, billingAddress: p.billingAddress },
    headers: { origin: p.origin },
  });
  expect(t.status, JSON.stringify(t.body)).toBe(200);
  const transactionId = t.body.transactionId as string;
  const record = await api('GET', `${p.adminBaseUrl}/transactions/${transactionId}`, { token: p.apiKey });
  const paid = await fetch(`${p.sandboxUrl}/v1/payment_intents/${record.body.providerPaymentId}/confirm`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.provider.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ payment_method: 'pm_card_visa' }).toString(),
  });
  expect(paid.status).toBe(200);
  return transactionId;
}
