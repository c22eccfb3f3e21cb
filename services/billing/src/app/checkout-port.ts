import type { CheckoutInvoiceTax } from '@paymesh/contracts';
import type { OrgKey } from './deps';

/** A checkout session billing asks the checkout service for (an invoice payment link). */
export interface InvoiceCheckoutRequest extends OrgKey {
  siteId: string;
  amount: number;
  currency: string;
  invoiceNumber: string;
  clientId: string | null;
  email: string | null;
  returnUrl: string | null;
  cancelUrl: string | null;
  /** RFC 3339. */
  expiresAt: string;
  metadata: Record<string, string>;
  /** The tax the checkout's transactions store (allocated from the invoice's snapshot). */
  invoiceTax: CheckoutInvoiceTax;
}

export interface CreatedCheckout {
  id: string;
  sessionPublicId: string;
  paymentUrl: string;
  amount: number;
  expiresAt: string;
}

/** The checkout service as payment links use it. */
export interface PaymentLinkCheckoutPort {
  createCheckout(req: InvoiceCheckoutRequest): Promise<CreatedCheckout>;
}
