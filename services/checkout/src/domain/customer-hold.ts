import { ConflictError, ErrorCode, ValidationError } from '@paymesh/core';
import type { StoredDoc } from '@paymesh/store';
import type { Mode } from './site';
import { isFinalChargeback, type Chargeback, type ChargebackStatus } from './transaction';

/**
 * Customer risk holds and dispute blocks: who counts as the same buyer, what the organization's
 * hold policy does with a lost dispute, and what a checkout for a flagged buyer may do. Pure: no
 * I/O, no clock.
 */

// ---------------------------------------------------------------- the same buyer

/**
 * A buyer as far as disputes and holds recognise them: the normalized e-mail addresses seen on the
 * payment (the checkout's and the billing address's) and the merchant's client ID. Two payments
 * are of the same buyer when they share an e-mail address or the client ID (within one
 * organization and data mode).
 */
export interface BuyerIdentity {
  emails: string[];
  clientId: string | null;
}

/** Trimmed and lower-cased; empty means none. Mailbox names are case-sensitive in theory, never in practice. */
export function normalizeEmail(value: string | null | undefined): string | null {
  const v = (value ?? '').trim().toLowerCase();
  return v === '' ? null : v;
}

export function buyerOf(emails: (string | null | undefined)[], clientId: string | null | undefined): BuyerIdentity {
  const list = [...new Set(emails.map(normalizeEmail).filter((e): e is string => e !== null))];
  const client = (clientId ?? '').trim().toLowerCase();
  return { emails: list, clientId: client === '' ? null : client };
}

/** The lookup keys of a buyer (`email:<address>`, `client:<id>`); empty when nothing identifies them. */
export function buyerKeys(b: BuyerIdentity): string[] {
  return [...b.emails.map((e) => `email:${e}`), ...(b.clientId ? [`client:${b.clientId}`] : [])];
}

// ---------------------------------------------------------------- the organization's hold policy

/** What a hold does to later checkouts of the buyer. */
export const HOLD_ACTIONS = ['block', 'review', 'restrict'] as const;
export type HoldAction = (typeof HOLD_ACTIONS)[number];

/** `none`: a lost dispute creates no hold. */
export const HOLD_POLICIES = ['none', ...HOLD_ACTIONS] as const;
export type HoldPolicyAction = (typeof HOLD_POLICIES)[number];

/**
 * Provider types through which the buyer can pay by bank transfer: provider_b (redirect payments
 * with a bank-transfer method: the buyer pushes the money) and provider_c (bank debit from the
 * buyer's account). Card (provider_a) and wallet (provider_d) payments can be charged back by the
 * buyer, so they are never safe.
 */
export const BANK_TRANSFER_CAPABLE = ['provider_b', 'provider_c'] as const;

export interface RiskSettings {
  /** What a lost or accepted dispute does to the buyer's later checkouts. */
  holdPolicy: HoldPolicyAction;
  /** Provider types a `restrict` hold still allows; a non-empty subset of {@link BANK_TRANSFER_CAPABLE}. */
  safeProviderTypes: string[];
}

export function defaultRiskSettings(): RiskSettings {
  // provider_c is left out by default: a bank debit can still be reversed through the debit scheme.
  return { holdPolicy: 'block', safeProviderTypes: ['provider_b'] };
}

/** Checks settings after a patch was merged (400 naming the field). */
export function validateRiskSettings(s: RiskSettings): RiskSettings {
  if (!(HOLD_POLICIES as readonly string[]).includes(s.holdPolicy)) {
    throw new ValidationError(`holdPolicy must be one of ${HOLD_POLICIES.join(', ')}`, { field: 'holdPolicy' });
  }
  const safe = [...new Set(s.safeProviderTypes)];
  if (safe.length === 0)
    throw new ValidationError('safeProviderTypes must name at least one provider type', { field: 'safeProviderTypes' });
  for (const t of safe) {
    if (!(BANK_TRANSFER_CAPABLE as readonly string[]).includes(t)) {
      throw new ValidationError(
        `safeProviderTypes: ${t} is not bank-transfer-capable (allowed: ${BANK_TRANSFER_CAPABLE.join(', ')})`,
        {
          field: 'safeProviderTypes',
        },
      );
    }
  }
  return { holdPolicy: s.holdPolicy, safeProviderTypes: safe };
}

/** The hold a chargeback outcome creates under the policy: only a final merchant loss creates one. */
export function holdActionFor(settings: RiskSettings, outcome: ChargebackStatus): HoldAction | null {
  if (outcome !== 'lost' && outcome !== 'accepted') return null;
  return settings.holdPolicy === 'none' ? null : settings.holdPolicy;
}

// ---------------------------------------------------------------- records

export type HoldStatus = 'active' | 'lifted';

/** A customer risk hold (checkout collection `customer_holds`). */
export interface CustomerHoldDoc extends StoredDoc {
  organizationId: string;
  mode: Mode;
  status: HoldStatus;
  action: HoldAction;
  /** Provider types a `restrict` hold allows (the policy's at creation); empty for the other actions. */
  safeProviderTypes: string[];
  buyer: BuyerIdentity;
  /** The buyer's first e-mail (the transaction's), as a plain field the hold list filters on. */
  buyerEmail: string | null;
  source: {
    transactionId: string;
    chargebackId: string;
    outcome: 'lost' | 'accepted';
    /** Who decided the outcome: the provider's report, or an operator (`user:<id>`, `api_key:<id>`, ...). */
    decidedBy: string;
  };
  /** `<transactionId>:<chargebackId>`; unique, so one chargeback never holds a buyer twice. */
  sourceKey: string;
  createdAt: string;
  updatedAt: string;
  liftedAt: string | null;
  liftedBy: string | null;
  liftReason: string | null;
}

/**
 * One lookup key of a flagged buyer (checkout collection `buyer_blocks`), present only while the
 * flag is: an active dispute (removed when it is decided) or an active hold (removed when lifted).
 */
export interface BuyerBlockDoc extends StoredDoc {
  organizationId: string;
  mode: Mode;
  key: string;
  kind: 'dispute' | 'hold';
  /** `dispute:<transactionId>:<chargebackId>` or `hold:<holdId>`. */
  ref: string;
  /** Holds: what the hold does; null for disputes. */
  action: HoldAction | null;
  safeProviderTypes: string[];
  createdAt: string;
}

export const disputeRef = (transactionId: string, chargebackId: string): string =>
  `dispute:${transactionId}:${chargebackId}`;
export const holdRef = (holdId: string): string => `hold:${holdId}`;

/** The block rows for a buyer flag: one per key. */
export function blocksFor(
  base: Pick<BuyerBlockDoc, 'organizationId' | 'mode' | 'kind' | 'ref' | 'action' | 'safeProviderTypes' | 'createdAt'>,
  buyer: BuyerIdentity,
): Omit<BuyerBlockDoc, 'id' | 'version'>[] {
  return buyerKeys(buyer).map((key) => ({ ...base, key }));
}

/** Lifting: once; a repeat leaves the record as it is (idempotent). */
export function liftHold(
  hold: CustomerHoldDoc,
  by: { actor: string; reason: string | null; at: string },
): CustomerHoldDoc | null {
  if (hold.status === 'lifted') return null;
  return { ...hold, status: 'lifted', liftedAt: by.at, liftedBy: by.actor, liftReason: by.reason, updatedAt: by.at };
}

// ---------------------------------------------------------------- what a flagged buyer may do

export type BuyerVerdict =
  | { kind: 'clear' }
  /** An open or under-review dispute of the same buyer. */
  | { kind: 'dispute' }
  /** A block or review hold. */
  | { kind: 'held'; action: 'block' | 'review' }
  /** Only these provider types (what every restricting hold allows). */
  | { kind: 'restricted'; safeProviderTypes: string[] };

/** The strictest flag wins: an active dispute, then block/review holds, then restrictions (intersected). */
export function judgeBuyer(blocks: Pick<BuyerBlockDoc, 'kind' | 'action' | 'safeProviderTypes'>[]): BuyerVerdict {
  if (blocks.some((b) => b.kind === 'dispute')) return { kind: 'dispute' };
  const holds = blocks.filter((b) => b.kind === 'hold');
  if (holds.some((b) => b.action === 'block')) return { kind: 'held', action: 'block' };
  if (holds.some((b) => b.action === 'review')) return { kind: 'held', action: 'review' };
  const restricting = holds.filter((b) => b.action === 'restrict');
  if (restricting.length === 0) return { kind: 'clear' };
  const safe = restricting.map((b) => b.safeProviderTypes).reduce((acc, list) => acc.filter((t) => list.includes(t)));
  return { kind: 'restricted', safeProviderTypes: [...new Set(safe)] };
}

/** Refuses any checkout of a blocked buyer: 409 CHECKOUT_BLOCKED_BY_DISPUTE / CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD. */
export function assertNotBlocked(v: BuyerVerdict): void {
  if (v.kind === 'dispute') {
    throw new ConflictError('checkout blocked: a dispute of this buyer is open or under review', {
      code: ErrorCode.CHECKOUT_BLOCKED_BY_DISPUTE,
    });
  }
  if (v.kind === 'held') {
    const why = v.action === 'review' ? 'requires merchant review' : 'blocks checkout';
    throw new ConflictError(`checkout blocked: a customer risk hold of this buyer ${why}`, {
      code: ErrorCode.CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD,
    });
  }
}

function restricted(safe: string[]): ConflictError {
  const allowed = safe.length ? `only ${safe.join(', ')} may be used` : 'no provider type is allowed';
  return new ConflictError(`checkout restricted by a customer risk hold: ${allowed}`, {
    code: ErrorCode.CHECKOUT_RESTRICTED_BY_CUSTOMER_HOLD,
  });
}

/** The provider types of `offered` the buyer may use (all of them unless restricted). */
export function allowedProviderTypes(v: BuyerVerdict, offered: string[]): string[] {
  if (v.kind !== 'restricted') return offered;
  return offered.filter((t) => v.safeProviderTypes.includes(t));
}

/**
 * Checkout creation: blocked buyers are refused; a restricted buyer is refused only when none of
 * the organization's enabled provider types is safe (the session could not be paid at all).
 */
export function assertCheckoutAllowed(v: BuyerVerdict, offeredTypes: string[]): void {
  assertNotBlocked(v);
  if (v.kind === 'restricted' && allowedProviderTypes(v, offeredTypes).length === 0)
    throw restricted(v.safeProviderTypes);
}

/** Paying (handoff, transaction create): blocked buyers are refused, restricted ones need a safe provider type. */
export function assertPaymentAllowed(v: BuyerVerdict, providerType: string): void {
  assertNotBlocked(v);
  if (v.kind === 'restricted' && !v.safeProviderTypes.includes(providerType)) throw restricted(v.safeProviderTypes);
}

// ---------------------------------------------------------------- manual chargeback resolution

export const CHARGEBACK_STATUSES = [
  'open',
  'under_review',
  'won',
  'lost',
  'accepted',
] as const satisfies readonly ChargebackStatus[];

/**
 * An operator's decision on a recorded chargeback: `unchanged` for a repeat of its current status
 * (nothing is written); a decided chargeback cannot take another status (409 CHARGEBACK_FINAL).
 */
export function manualChargebackChange(existing: Chargeback, status: ChargebackStatus): 'unchanged' | 'change' {
  if (existing.status === status) return 'unchanged';
  if (isFinalChargeback(existing.status)) {
    throw new ConflictError(`chargeback ${existing.id} is already ${existing.status} and cannot become ${status}`, {
      code: ErrorCode.CHARGEBACK_FINAL,
    });
  }
  return 'change';
}
