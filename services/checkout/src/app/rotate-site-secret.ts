import { NotFoundError, secretHint } from '@paymesh/core';
import { eventId } from '@paymesh/bus';
import { Subjects, type SiteSecretRotated } from '@paymesh/contracts';
import { newWebhookSigningSecret, type Mode, type SiteDoc } from '../domain/site';
import { SITES } from '../store/collections';
import { ownsSite } from './get-site';
import type { CheckoutDeps } from './deps';

/**
 * Replaces a site's IPN signing secret with a new `whsec_` secret and announces
 * `checkout.site.secret_rotated` in the same transaction. The old secret is discarded, so from the
 * commit on every IPN is signed with the new one. The plaintext is returned this once.
 */
export async function rotateSiteSecret(
  deps: CheckoutDeps,
  organizationId: string,
  mode: Mode,
  id: string,
): Promise<{ site: SiteDoc; secret: string }> {
  const secret = newWebhookSigningSecret();
  const now = deps.clock.now().toISOString();
  const site = await deps.outbox.commit(async (tx) => {
    const sites = tx.collection<SiteDoc>(SITES);
    const cur = await sites.get(id);
    if (!ownsSite(cur, organizationId, mode)) throw new NotFoundError('site not found');
    const hint = secretHint(secret);
    const next = await sites.replace({
      ...cur,
      webhookSecret: deps.secrets.seal(secret, id),
      webhookSecretHint: hint,
      updatedAt: now,
    });
    const data: SiteSecretRotated = { organizationId, siteId: id, mode, secretHint: hint, rotatedAt: now };
    tx.emit(Subjects.siteSecretRotated, data, {
      id: eventId(Subjects.siteSecretRotated, id, String(next.version)),
      occurredAt: now,
    });
    return next;
  });
  deps.logger.info({ siteId: id, organizationId }, 'site webhook signing secret rotated');
  return { site, secret };
}
