import { ConflictError, ValidationError, ErrorCode } from '@paymesh/core';
import {
  checkoutStatus,
  validateExpiresAt,
  validateMetadata,
  validateRedirectUrl,
  type CheckoutDoc,
} from '../domain/checkout';
import { validateIpnUrl } from '../domain/ipn-target';
import type { Mode } from '../domain/site';
import { CHECKOUTS } from '../store/collections';
import { getCheckout } from './get-checkout';
import { checkIpnTargetResolution } from './ipn-target-check';
import type { PaymentsDeps } from './payments-deps';

/** Fields a merchant may change; absent: unchanged; empty string: cleared (URLs). */
export interface CheckoutPatch {
  expiresAt?: string | undefined;
  returnUrl?: string | undefined;
  cancelUrl?: string | undefined;
  ipnUrl?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

/**
 * Changes a pending, unexpired checkout. Amount, currency, items and references are fixed once
 * created (a buyer may be paying them); transactions already created keep the URLs they copied.
 */
export async function updateCheckout(
  deps: PaymentsDeps,
  ref: { organizationId: string; mode: Mode; id: string },
  patch: CheckoutPatch,
): Promise<CheckoutDoc> {
  const current = await getCheckout(deps, ref.organizationId, ref.mode, ref.id);
  const now = deps.clock.now();
  const changes: Partial<CheckoutDoc> = {};
  if (patch.expiresAt !== undefined) {
    if (patch.expiresAt.trim() === '')
      throw new ValidationError('expiresAt must be an RFC 3339 timestamp', { field: 'expiresAt' });
    changes.expiresAt = validateExpiresAt(patch.expiresAt, now, deps.settings.sessionTtlHours);
  }
  if (patch.returnUrl !== undefined)
    changes.returnUrl = patch.returnUrl.trim() ? validateRedirectUrl('returnUrl', patch.returnUrl) : null;
  if (patch.cancelUrl !== undefined)
    changes.cancelUrl = patch.cancelUrl.trim() ? validateRedirectUrl('cancelUrl', patch.cancelUrl) : null;
  if (patch.ipnUrl !== undefined) {
    changes.ipnUrl = patch.ipnUrl.trim() ? validateIpnUrl(patch.ipnUrl, deps.settings.ipnPolicy) : null;
    await checkIpnTargetResolution(deps, changes.ipnUrl);
  }
  if (patch.metadata !== undefined) changes.metadata = validateMetadata(patch.metadata);
  if (Object.keys(changes).length === 0)
    throw new ValidationError('nothing to update: give expiresAt, returnUrl, cancelUrl, ipnUrl or metadata');
  const status = checkoutStatus(current, now);
  if (status !== 'pending')
    throw new ConflictError(`a ${status} checkout cannot be changed`, { code: ErrorCode.CHECKOUT_NOT_PENDING });
  const updated = await deps.store.collection<CheckoutDoc>(CHECKOUTS).update(current.id, (cur) => {
    if (checkoutStatus(cur, now) !== 'pending')
      throw new ConflictError(`a ${checkoutStatus(cur, now)} checkout cannot be changed`, {
        code: ErrorCode.CHECKOUT_NOT_PENDING,
      });
    return { ...cur, ...changes, updatedAt: now.toISOString() };
  });
  deps.logger.info({ checkoutId: updated.id, fields: Object.keys(changes) }, 'checkout updated');
  return updated;
}
