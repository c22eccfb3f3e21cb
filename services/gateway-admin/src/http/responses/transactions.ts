import { z } from 'zod';
import { billingAddressAnswer } from '@paymesh/http';
import { metadata, objectIdString, page, testMode, timestamp } from './common';
import { shippingAddress } from './checkouts';

const billingAddress = billingAddressAnswer.extend({
  vatId: z.string().nullable().describe('buyer VAT ID as given (normalized), null when none'),
});

const refund = z.object({
  id: z.string().describe('provider refund id'),
  amount: z.number().int().describe('minor units'),
  currency: z.string(),
  at: timestamp,
  providerEventId: z.string(),
});

const chargeback = z.object({
  id: z.string().describe('provider dispute id'),
  status: z.enum(['open', 'under_review', 'won', 'lost', 'accepted']),
  amount: z.number().int().describe('disputed amount, minor units'),
  currency: z.string(),
  reason: z.string().nullable().describe("the provider's dispute reason"),
  at: timestamp.describe('when it was first recorded'),
  updatedAt: timestamp,
  resolvedAt: timestamp.nullable().describe('when it was decided (won, lost, accepted); null while active'),
  decidedBy: z
    .string()
    .nullable()
    .describe('provider, or the operator of a manual resolution (user:<id>, api_key:<id>, system_key:<id>)'),
  decisionReason: z.string().nullable().describe("the operator's reason for the last manual change"),
});

export const transaction = z.object({
  id: z.string(),
  organizationId: objectIdString,
  siteId: objectIdString,
  testMode,
  checkoutId: z.string().nullable(),
  sessionPublicId: z.string().nullable(),
  status: z.number().int().describe('status code (see the specification: -1 initiated, 1 completed, ...)'),
  subState: z.string().nullable(),
  amount: z.number().int().describe('minor units'),
  currency: z.string(),
  email: z.string().nullable(),
  externalReference: z.string().nullable(),
  invoiceNumber: z.string().nullable(),
  clientId: z.string().nullable(),
  returnUrl: z.string().nullable(),
  cancelUrl: z.string().nullable(),
  ipnUrl: z.string().nullable(),
  providerId: z.string().nullable(),
  providerType: z.string().nullable(),
  providerPaymentId: z.string().nullable(),
  providerPayment: z.object({ state: z.string(), error: z.string().nullable() }),
  billingAddress: billingAddress.nullable(),
  shippingAddress: shippingAddress
    .nullable()
    .describe(
      "the shipping address the tax was computed with (the buyer's at transaction create, else the checkout's); null when none",
    ),
  metadata,
  notes: z.string().nullable(),
  manual: z.boolean(),
  manualReason: z.string().nullable(),
  refunds: z.array(refund).describe('refunds the provider reported, one per provider refund'),
  chargebacks: z.array(chargeback).describe('disputes of the payment, one per provider dispute'),
  createdAt: timestamp,
  updatedAt: timestamp,
});

/** Transactions are counted up to a bound: past it, `total` is a lower bound (ADR 0075). */
export const transactionPage = page(transaction).extend({
  total: z
    .number()
    .int()
    .min(0)
    .describe(
      'transactions matching the filters, over all pages; when `totalIsLowerBound` is true, a lower bound: counting stopped there (at 10,001, or one past the requested page when that is further), and there are at least this many',
    ),
  totalIsLowerBound: z
    .boolean()
    .describe(
      'true when the list is longer than counted: `total` is then "at least" (show "more than total - 1"), and the page after the requested one exists',
    ),
});

const statusChange = z.object({
  from: z.number().int().nullable(),
  to: z.number().int(),
  subState: z.string().nullable(),
  trigger: z.string(),
  at: timestamp,
  providerEventId: z.string().nullable(),
  requestId: z.string().nullable(),
  reason: z.string().nullable(),
});

export const ipnDelivery = z.object({
  id: z.string(),
  sequence: z.number().int(),
  status: z.number().int(),
  url: z.string(),
  state: z.string(),
  attempts: z.array(
    z.object({
      number: z.number().int(),
      at: timestamp,
      httpStatus: z.number().int().nullable(),
      error: z.string().nullable(),
      durationMs: z.number(),
      requestedBy: z
        .string()
        .nullable()
        .describe(
          'who asked for the redelivery this attempt belongs to (e-mail or api_key:<keyId>); null when automatic',
        ),
    }),
  ),
  lastHttpStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: timestamp.nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

/** A transaction with its status history (update, manual create). */
export const transactionWithHistory = transaction.extend({ statusHistory: z.array(statusChange) });

/** The single read: history and IPN deliveries (null when notifications-ipn cannot answer). */
export const transactionDetail = transactionWithHistory.extend({
  ipn: z
    .object({
      deliveries: z.array(ipnDelivery),
      lastHttpStatus: z.number().int().nullable().describe('HTTP status of the latest attempt'),
    })
    .nullable(),
});

/** Delete answers what it removed (200, not 204: existing integrations read it). */
export const transactionDeleted = z.object({ id: z.string(), deleted: z.boolean().describe('always true') });
