import { z } from 'zod';
import { httpUrl } from '@paymesh/http';
import { PAYMENT_LINK_LIMITS } from '@paymesh/contracts';
import { resource } from '../route-table';
import { invoicePaymentCheckout } from '../responses/invoice-payment-links';
import { toBilling } from './billing-rpc';
import { idParams } from './common';

const L = PAYMENT_LINK_LIMITS;

/** Body of the payment checkout (all optional); billing checks the amount against the outstanding amount. */
const paymentCheckoutBody = z
  .object({
    amount: z
      .number()
      .int('amount must be an integer in minor units')
      .min(L.minAmount, `amount must be at least ${L.minAmount} minor units`)
      .optional()
      .describe(`minor units; default the outstanding amount; ${L.minAmount} up to the outstanding amount`),
    expireInHours: z
      .number()
      .int('expireInHours must be an integer')
      .min(L.minExpireInHours, `expireInHours must be from ${L.minExpireInHours} to ${L.maxExpireInHours}`)
      .max(L.maxExpireInHours, `expireInHours must be from ${L.minExpireInHours} to ${L.maxExpireInHours}`)
      .optional()
      .describe(`default the invoicing setting autoPaymentLinkExpiresInHours, else ${L.defaultExpireInHours}`),
    returnUrl: httpUrl().optional().describe('where the buyer returns after paying; may contain {transactionId}'),
    cancelUrl: httpUrl().optional().describe('where the buyer goes on cancel; may contain {transactionId}'),
  })
  .strict();

const invoices = resource({ tag: 'Invoices', scopePrefix: 'invoice' });

/** Hosted payment links of issued invoices. */
export const invoicePaymentLinkRoutes = [
  invoices({
    method: 'POST',
    path: '/invoices/:id/payment-checkout',
    operationId: 'createInvoicePaymentCheckout',
    action: 'execute',
    status: 200,
    response: invoicePaymentCheckout,
    errors: [409],
    summary:
      'Create a hosted payment link (checkout) for an issued invoice: the outstanding amount or a part of it (at least 50 minor units); 400 for drafts, settled invoices and amounts out of range',
    params: idParams,
    body: paymentCheckoutBody,
    handler: toBilling.byIdBodyActing('createInvoicePaymentCheckout'),
  }),
];
