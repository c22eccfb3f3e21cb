import { decodeValue, isObjectId, ValidationError, type Logger } from '@paymesh/core';
import { billingFileRpc, billingRpc, portalEmail } from '@paymesh/contracts';
import { z } from 'zod';
import { envelopeServer, type EnvelopeServer, type JsonEnvelope } from '@paymesh/grpc';
import type { OrgKey } from '../app/deps';

/** Tenant of a request; throws a ValidationError for a malformed organization id. */
export function orgKeyOf(req: { organizationId: string; testMode: boolean }): OrgKey {
  if (!isObjectId(req.organizationId))
    throw new ValidationError('organizationId must be a 24-hex identifier', { field: 'organizationId' });
  return { organizationId: req.organizationId, mode: req.testMode ? 'test' : 'live' };
}

/** The record id of a request; a malformed one is a ValidationError. */
export function idOf(req: JsonEnvelope, field = 'id'): string {
  if (!isObjectId(req.id)) throw new ValidationError(`${field} must be a 24-hex identifier`, { field });
  return req.id;
}

/** The buyer of a portal call (the envelope's `email`), trimmed and lower-cased; a malformed one is a ValidationError. */
export function buyerOf(req: JsonEnvelope): string {
  return decodeValue(z.object({ email: portalEmail }), { email: req.email ?? '' }).email;
}

/** Who acts, when the caller named someone. */
export function actorOf(req: JsonEnvelope): string | null {
  return req.actor || null;
}

/** Billing's envelope RPCs, typed by `billingRpc` / `billingFileRpc` of @paymesh/contracts. */
export function billingEdge(logger: Logger): EnvelopeServer<typeof billingRpc, typeof billingFileRpc> {
  return envelopeServer(logger, 'billing', billingRpc, billingFileRpc);
}
