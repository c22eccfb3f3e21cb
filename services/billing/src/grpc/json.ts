import { decodeValue, type Logger, type WireTenant, tenantOf, requireObjectId } from '@paymesh/core';
import { billingFileRpc, billingRpc, portalEmail } from '@paymesh/contracts';
import { z } from 'zod';
import { envelopeServer, type EnvelopeServer, type JsonEnvelope } from '@paymesh/grpc';
import type { OrgKey } from '../app/deps';

/** Tenant of a request; throws a ValidationError for a malformed organization id. */
export const orgKeyOf = (req: WireTenant): OrgKey => tenantOf(req);

/** The record id of a request; a malformed one is a ValidationError. */
export const idOf = (req: JsonEnvelope, field = 'id'): string => requireObjectId(req.id, field);

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
