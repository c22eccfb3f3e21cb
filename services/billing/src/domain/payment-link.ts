import { ValidationError } from '@paymesh/core';
import { PAYMENT_LINK_LIMITS as L } from '@paymesh/contracts';

/** What the payment link rules need of an invoice. */
export interface PayableFacts {
  status: string;
  /** Gross total of the invoice, minor units. */
  total: number;
  /** Outstanding amount (total - payments + reversed payments). */
  outstanding: number;
}

/**
 * Whether an invoice can get a payment link: issued (or partly paid), not empty, not settled.
 * Drafts, voided, paid, empty and zero-outstanding invoices are refused with a 400.
 */
export function assertPayable(inv: PayableFacts): void {
  if (inv.status === 'draft')
    throw new ValidationError('a draft invoice has no payment link; issue it first', { field: 'id' });
  if (inv.status === 'void') throw new ValidationError('a voided invoice cannot be paid', { field: 'id' });
  if (inv.total <= 0)
    throw new ValidationError('the invoice is empty (total 0); there is nothing to pay', { field: 'id' });
  if (inv.status === 'paid' || inv.outstanding <= 0)
    throw new ValidationError('the invoice is settled; nothing is outstanding', { field: 'id' });
}

/**
 * Amount of a link: the outstanding amount by default; a requested amount must be an integer from
 * 50 minor units up to the outstanding amount.
 */
export function linkAmount(outstanding: number, requested: number | undefined): number {
  if (requested === undefined) {
    if (outstanding < L.minAmount) {
      throw new ValidationError(
        `the outstanding amount ${outstanding} is below the smallest payment link (${L.minAmount} minor units)`,
        { field: 'amount' },
      );
    }
    return outstanding;
  }
  if (!Number.isSafeInteger(requested))
    throw new ValidationError('amount must be an integer in minor units', { field: 'amount' });
  if (requested < L.minAmount)
    throw new ValidationError(`amount must be at least ${L.minAmount} minor units`, { field: 'amount' });
  if (requested > outstanding)
    throw new ValidationError(`amount must be at most the outstanding amount (${outstanding})`, { field: 'amount' });
  return requested;
}

/**
 * Hours until the link expires: the requested value (1 to 3120), else the invoicing setting
 * `autoPaymentLinkExpiresInHours` when it is in that range, else 336.
 */
export function linkExpiryHours(requested: number | undefined, setting: number | null | undefined): number {
  const inRange = (h: number) => Number.isInteger(h) && h >= L.minExpireInHours && h <= L.maxExpireInHours;
  if (requested !== undefined) {
    if (!inRange(requested))
      throw new ValidationError(`expireInHours must be from ${L.minExpireInHours} to ${L.maxExpireInHours}`, {
        field: 'expireInHours',
      });
    return requested;
  }
  return setting !== null && setting !== undefined && inRange(setting) ? setting : L.defaultExpireInHours;
}
