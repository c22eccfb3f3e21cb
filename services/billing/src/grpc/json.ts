import { isObjectId, ValidationError } from '@paymesh/core';
import { jsonUnary as genericJsonUnary, parseJsonBody } from '@paymesh/grpc';
import type { Logger } from '@paymesh/core';
import type { billing } from '@paymesh/proto';
import type { ZodType, ZodTypeDef } from 'zod';
import type { OrgKey } from '../app/deps';

/** Tenant of a JSON-carrying request; throws a ValidationError for a malformed organization id. */
export function orgKeyOf(req: { organizationId: string; testMode: boolean }): OrgKey {
  if (!isObjectId(req.organizationId))
    throw new ValidationError('organizationId must be a 24-hex identifier', { field: 'organizationId' });
  return { organizationId: req.organizationId, mode: req.testMode ? 'test' : 'live' };
}

/** The record id of a request; a malformed one is a ValidationError. */
export function idOf(req: billing.BillingJsonRequest, field = 'id'): string {
  if (!isObjectId(req.id)) throw new ValidationError(`${field} must be a 24-hex identifier`, { field });
  return req.id;
}

/** Parses `body_json` (empty = `{}`) with a contract schema. */
export function bodyOf<T>(req: billing.BillingJsonRequest, schema: ZodType<T, ZodTypeDef, unknown>): T {
  return parseJsonBody(req.bodyJson, schema);
}

/** A billing JSON-carrying unary handler. */
export function jsonUnary(
  logger: Logger,
  method: string,
  handler: (req: billing.BillingJsonRequest) => Promise<unknown>,
): billing.BillingServiceServer['listClients'] {
  return genericJsonUnary(logger, method, handler);
}
