import { z } from 'zod';
import { metadata, objectIdString, page, testMode, timestamp } from './common';

/** A stored shipping address (checkout: the merchant's; transaction: the one its tax was computed with). */
export const shippingAddress = z.object({
  country: z.string().describe('ISO 3166-1 alpha-2; the destination of goods and shipping lines for tax'),
  name: z.string().nullable(),
  line1: z.string().nullable(),
  city: z.string().nullable(),
  postalCode: z.string().nullable(),
});

const checkoutStatus = z.string().describe('pending, completed or expired');

/** The spec's checkout creation response (200). */
export const checkoutCreated = z.object({
  id: objectIdString.describe('checkout document ID'),
  sessionPublicId: z.string(),
  shortCode: z.string(),
  paymentUrl: z.string().describe('URL of the hosted checkout for this session'),
  status: checkoutStatus,
  expiresAt: timestamp,
});

export const checkout = z.object({
  id: objectIdString,
  organizationId: objectIdString,
  siteId: objectIdString,
  testMode,
  sessionPublicId: z.string(),
  shortCode: z.string(),
  paymentUrl: z.string(),
  status: checkoutStatus,
  amount: z.number().int().describe('minor units'),
  currency: z.string(),
  email: z.string().nullable(),
  returnUrl: z.string().nullable(),
  cancelUrl: z.string().nullable(),
  ipnUrl: z.string().nullable(),
  externalReference: z.string().nullable(),
  invoiceNumber: z.string().nullable(),
  clientId: z.string().nullable(),
  items: z.array(
    z.object({
      name: z.string(),
      description: z.string().nullable(),
      quantity: z.number().int(),
      unitPrice: z.number().int(),
      vatRate: z.number().nullable(),
      itemType: z.string().nullable(),
    }),
  ),
  shippingAddress: shippingAddress.nullable().describe("the merchant's shipping address; null when none"),
  metadata,
  expiresAt: timestamp,
  completedTransactionId: z.string().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const checkoutPage = page(checkout);

export const checkoutWithTransactions = checkout.extend({
  transactions: z.array(z.object({ id: z.string(), status: z.number().int(), createdAt: timestamp })),
});
