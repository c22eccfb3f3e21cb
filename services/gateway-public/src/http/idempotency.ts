import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Clock } from '@paymesh/core';
import {
  documentIdempotency,
  gatewayIdempotencyRecords,
  parseInput,
  type IdempotencyPluginOptions,
  type OpenApiTransform,
} from '@paymesh/http';
import type { DocumentStore } from '@paymesh/store';
import { required } from './routes/parse';

/** The buyer-facing creates that honour Idempotency-Key: transaction create and billing-request create. */
export const PUBLIC_KEYED_OPERATIONS: ReadonlySet<string> = new Set(['createTransaction', 'createBillingRequest']);

const sessionNamed = z.object({ sessionPublicId: required('sessionPublicId', 100) });

/**
 * Whose key it is. Buyers are anonymous: what authorises a transaction create is holding the
 * checkout session (its public ID in the body, checked with the Origin allow-list by checkout), so
 * a key belongs to the checkout session it names. A body without a usable session is a 400 before
 * the key is looked at.
 */
export function publicKeyScope(req: Pick<FastifyRequest, 'body'>): string {
  return `session:${parseInput(sessionNamed, req.body).sessionPublicId}`;
}

export const PUBLIC_KEY_SCOPE_TEXT = 'scoped to the checkout session named in the body (sessionPublicId)';

/** The plugin options of the Main Backend: records in the gateway's store, answers sealed with SECRETS_KEYRING. */
export function publicIdempotency(opts: {
  store: DocumentStore;
  keyring: string;
  clock?: Clock;
  waitMs?: number;
}): IdempotencyPluginOptions {
  return {
    records: gatewayIdempotencyRecords(opts),
    operations: PUBLIC_KEYED_OPERATIONS,
    scopeOf: publicKeyScope,
  };
}

/** The Main Backend's OpenAPI transform with Idempotency-Key on the keyed operations. */
export function documentPublicIdempotency(transform: OpenApiTransform): OpenApiTransform {
  return documentIdempotency(transform, PUBLIC_KEYED_OPERATIONS, PUBLIC_KEY_SCOPE_TEXT);
}
