import { z } from 'zod';
import { chargebackStatus } from './events';
import { objectId } from './object-id';

/**
 * Customer risk holds, the organization's hold policy and manual chargeback resolution (checkout
 * service, Admin API). The gateway validates HTTP input with these schemas and forwards it as JSON;
 * checkout parses it again and applies its rules; answers are parsed with the view schemas.
 */

const timestamp = z.string().describe('ISO 8601 UTC');

export const holdPolicyAction = z.enum(['none', 'block', 'review', 'restrict']);
export const holdAction = z.enum(['block', 'review', 'restrict']);

/** `GET/PUT /organizations/settings/risk`. */
export const riskSettingsView = z.object({
  holdPolicy: holdPolicyAction.describe(
    'what a lost or accepted dispute does to the buyer: none, block (409 CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD), review (same 409 until an Admin lifts the hold), restrict (only safeProviderTypes)',
  ),
  safeProviderTypes: z
    .array(z.string())
    .describe('provider types a restrict hold allows; bank-transfer-capable types only (provider_b, provider_c)'),
  updatedAt: timestamp.nullable().describe('null until first saved (defaults)'),
});
export type RiskSettingsView = z.infer<typeof riskSettingsView>;

/** Partial update (merge): fields present replace, `safeProviderTypes` as a whole. */
export const riskSettingsPatch = z
  .object({
    holdPolicy: holdPolicyAction.optional(),
    safeProviderTypes: z.array(z.string().max(40)).min(1).max(10).optional(),
  })
  .strict();
export type RiskSettingsPatch = z.infer<typeof riskSettingsPatch>;

export const customerHoldView = z.object({
  id: objectId,
  organizationId: objectId,
  testMode: z.boolean(),
  status: z.enum(['active', 'lifted']),
  action: holdAction,
  safeProviderTypes: z.array(z.string()).describe('provider types a restrict hold allows; empty for block and review'),
  buyer: z.object({
    emails: z.array(z.string()).describe('normalized (lower-case) e-mail addresses of the disputed payment'),
    clientId: z.string().nullable(),
  }),
  source: z.object({
    transactionId: z.string(),
    chargebackId: z.string(),
    outcome: z.enum(['lost', 'accepted']),
    decidedBy: z
      .string()
      .describe('provider, or the operator who resolved the chargeback (user:<id>, api_key:<id>, system_key:<id>)'),
  }),
  createdAt: timestamp,
  updatedAt: timestamp,
  liftedAt: timestamp.nullable(),
  liftedBy: z.string().nullable().describe('who lifted the hold (user:<id>, api_key:<id>, system_key:<id>)'),
  liftReason: z.string().nullable(),
});
export type CustomerHoldView = z.infer<typeof customerHoldView>;

export const customerHoldPage = z.object({
  items: z.array(customerHoldView),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});
export type CustomerHoldPage = z.infer<typeof customerHoldPage>;

/** `GET /customer-holds` query. */
export const customerHoldListQuery = z
  .object({
    status: z.enum(['active', 'lifted']).optional(),
    email: z.string().max(254).optional().describe('holds of this buyer e-mail (compared case-insensitively)'),
    clientId: objectId.optional(),
    transactionId: objectId.optional(),
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
export type CustomerHoldListQuery = z.infer<typeof customerHoldListQuery>;

/** `POST /customer-holds/:id/lift`. */
export const liftCustomerHoldBody = z
  .object({
    reason: z.string().trim().min(1).max(500).optional().describe('why the hold is lifted (kept with the record)'),
  })
  .strict();
export type LiftCustomerHoldBody = z.infer<typeof liftCustomerHoldBody>;

/** `PATCH /transactions/:id/chargeback/:chargebackId`. */
export const chargebackUpdateBody = z
  .object({
    status: chargebackStatus.describe(
      'open and under_review keep the dispute active; won, lost and accepted decide it for good',
    ),
    reason: z.string().trim().min(1).max(500).optional().describe('why (kept in the status history)'),
  })
  .strict();
export type ChargebackUpdateBody = z.infer<typeof chargebackUpdateBody>;
