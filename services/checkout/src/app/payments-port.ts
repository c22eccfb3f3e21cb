/** The payment provider side as checkout needs it (payments-webhooks over gRPC in production). */

export { PROVIDER_TYPES, type ProviderType } from '@paymesh/contracts';

export interface ProviderInfo {
  id: string;
  organizationId: string;
  type: string;
  enabled: boolean;
  testMode: boolean;
}

export interface CreatePaymentInput {
  organizationId: string;
  siteId: string;
  providerId: string;
  transactionId: string;
  amount: number;
  currency: string;
  description: string;
  buyerEmail: string;
  returnUrl: string;
  testMode: boolean;
}

export interface CreatedPayment {
  providerType: string;
  providerPaymentId: string;
  /** Absent when the provider gave none. */
  redirectUrl?: string;
  clientSecret?: string;
}

/**
 * Calls that reach payments-webhooks. Implementations throw DomainErrors; a service that does not
 * offer a call yet surfaces as `unavailable` (503), never as fake data.
 */
export interface PaymentsPort {
  getProvider(ref: { organizationId: string; id: string; testMode: boolean }): Promise<ProviderInfo>;
  /** Every provider of the organization in the mode (enabled or not). */
  listProviders(query: { organizationId: string; testMode: boolean }): Promise<ProviderInfo[]>;
  /** Idempotent per transaction ID. */
  createPayment(input: CreatePaymentInput): Promise<CreatedPayment>;
  cancelPayment(input: {
    organizationId: string;
    providerId: string;
    transactionId: string;
  }): Promise<{ cancelled: boolean }>;
}
