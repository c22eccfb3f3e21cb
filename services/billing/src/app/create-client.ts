import { ConflictError, ErrorCode, newObjectId, ofTenant } from '@paymesh/core';
import type { ClientCreate, ClientRecord } from '@paymesh/contracts';
import type { StoredDoc } from '@paymesh/store';
import type { ClientDoc } from '../domain/client';
import { diffClient } from '../domain/client-history';
import { assertValidTaxInfo, newPlainClient } from '../domain/client-plain';
import { requestFingerprint } from '../domain/idempotency';
import { CLIENT_IDEMPOTENCY_KEYS, CLIENTS } from '../store/collections';
import { clientView, newClientDoc, viewOf } from './client-codec';
import { appendHistory } from './client-history-log';
import type { BillingDeps, OrgKey } from './deps';

/** An `Idempotency-Key` of `POST /clients` as stored, written with the client it created. */
export interface ClientIdempotencyDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  key: string;
  fingerprint: string;
  clientId: string;
  createdAt: string;
}

/**
 * Creates a client and its first history entry together; invalid input writes nothing. With an
 * `idempotencyKey` (the `Idempotency-Key` header, unique per organization and mode) the key and the
 * request's fingerprint are stored in the same transaction: the same key with the same body answers
 * the client it created (as it is now), with another body (or after that client was deleted) 409
 * IDEMPOTENCY_KEY_REUSED; two racing
 * requests with one key create one client (unique index).
 */
export async function createClient(
  deps: BillingDeps,
  key: OrgKey,
  input: ClientCreate,
  actor: string,
  includeTaxInfo: boolean,
  idempotencyKey?: string,
): Promise<ClientRecord> {
  const fingerprint = requestFingerprint('createClient', input);
  const keys = deps.store.collection<ClientIdempotencyDoc>(CLIENT_IDEMPOTENCY_KEYS);
  const keyFilter = idempotencyKey ? { organizationId: key.organizationId, mode: key.mode, key: idempotencyKey } : null;
  if (keyFilter) {
    const seen = await keys.findOne(keyFilter);
    if (seen) return replay(deps, key, seen, fingerprint, includeTaxInfo);
  }
  const plain = newPlainClient(input);
  assertValidTaxInfo(plain.taxInfo);
  const id = newObjectId();
  const now = deps.clock.now().toISOString();
  const doc = newClientDoc(deps, key, id, plain, now);
  let stored: ClientDoc;
  try {
    stored = await deps.store.transaction(async (tx) => {
      const inserted = await tx.collection<ClientDoc>(CLIENTS).insert(doc);
      await appendHistory(tx, key, {
        clientId: id,
        at: now,
        actor,
        action: 'create',
        changes: diffClient(null, plain),
      });
      if (keyFilter)
        await tx
          .collection<ClientIdempotencyDoc>(CLIENT_IDEMPOTENCY_KEYS)
          .insert({ ...keyFilter, fingerprint, clientId: id, createdAt: now });
      return inserted;
    });
  } catch (err) {
    // A concurrent request with the same key created its client first.
    const winner =
      keyFilter && err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY
        ? await keys.findOne(keyFilter)
        : null;
    if (winner) return replay(deps, key, winner, fingerprint, includeTaxInfo);
    throw err;
  }
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, clientId: id, idempotencyKey: idempotencyKey ?? null },
    'client created',
  );
  return clientView(stored, plain, includeTaxInfo);
}

/** The answer to a repeated key: the client it created, or why there is none. */
async function replay(
  deps: BillingDeps,
  key: OrgKey,
  seen: ClientIdempotencyDoc,
  fingerprint: string,
  includeTaxInfo: boolean,
): Promise<ClientRecord> {
  if (seen.fingerprint !== fingerprint) {
    throw new ConflictError('Idempotency-Key: this key was already used to create a client with another body', {
      code: ErrorCode.IDEMPOTENCY_KEY_REUSED,
      field: 'Idempotency-Key',
    });
  }
  const doc = await deps.store.collection<ClientDoc>(CLIENTS).get(seen.clientId);
  if (!ofTenant(doc, key)) {
    throw new ConflictError(
      `Idempotency-Key: client ${seen.clientId} created with this key was deleted; use a new key`,
      { code: ErrorCode.IDEMPOTENCY_KEY_REUSED, field: 'Idempotency-Key' },
    );
  }
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, clientId: doc.id },
    'client create repeated with its Idempotency-Key; answered the client',
  );
  return viewOf(deps, key, doc, includeTaxInfo);
}
