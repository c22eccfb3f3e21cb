import { ConflictError, ErrorCode } from '@paymesh/core';
import { buyerClientId, buyerClientInput, type BuyerDetails } from '../domain/buyer-client';
import { emailKeyOf, type ClientDoc } from '../domain/client';
import { diffClient } from '../domain/client-history';
import { newPlainClient } from '../domain/client-plain';
import { CLIENTS } from '../store/collections';
import { newClientDoc } from './client-codec';
import { appendHistory } from './client-history-log';
import type { BillingDeps, OrgKey } from './deps';

/**
 * The client an automatic invoice is issued to when the transaction names none: the same buyer is
 * the same billing e-mail (compared trimmed and lower-cased) in the organization and mode. The
 * oldest client with that e-mail is taken; without one, a client is created from the billing
 * details (history actor `auto-invoice:<transactionId>`), with an id derived from the e-mail so
 * that racing deliveries create one. Null when the details make no buyer (see buyerClientInput).
 */
export async function clientForBuyer(
  deps: BillingDeps,
  key: OrgKey,
  buyer: BuyerDetails,
  transactionId: string,
): Promise<{ clientId: string; created: boolean } | null> {
  const input = buyerClientInput(buyer);
  if (!input?.email) return null;
  const clients = deps.store.collection<ClientDoc>(CLIENTS);
  const emailKey = emailKeyOf(input.email);
  const existing =
    (await clients.findOne(
      { organizationId: key.organizationId, mode: key.mode, emailKey },
      { sort: { createdAt: 1 } },
    )) ??
    // Clients saved before the matching form was stored: the e-mail as given.
    (await clients.findOne(
      { organizationId: key.organizationId, mode: key.mode, email: input.email, emailKey: { $exists: false } },
      { sort: { createdAt: 1 } },
    ));
  if (existing) return { clientId: existing.id, created: false };

  const id = buyerClientId(key.organizationId, key.mode, input.email);
  const plain = newPlainClient(input);
  const now = deps.clock.now().toISOString();
  try {
    await deps.store.transaction(async (tx) => {
      await tx.collection<ClientDoc>(CLIENTS).insert(newClientDoc(deps, key, id, plain, now));
      await appendHistory(tx, key, {
        clientId: id,
        at: now,
        actor: `auto-invoice:${transactionId}`,
        action: 'create',
        changes: diffClient(null, plain),
      });
    });
  } catch (err) {
    // A concurrent delivery for the same buyer created it first.
    if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) return { clientId: id, created: false };
    throw err;
  }
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, clientId: id, transactionId },
    'client created from the billing details of a transaction',
  );
  return { clientId: id, created: true };
}
