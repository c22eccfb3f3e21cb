import type { FastifyRequest } from 'fastify';
import type { Clock } from '@paymesh/core';
import {
  documentIdempotency,
  gatewayIdempotencyRecords,
  type IdempotencyPluginOptions,
  type OpenApiTransform,
} from '@paymesh/http';
import type { DocumentStore } from '@paymesh/store';
import { principalClientId } from '../domain/principal';
import type { AnyRoute } from './route-table';

/**
 * POST rows that take no Idempotency-Key, and why. Every other POST row (a create or a change)
 * takes one; a unit test keeps this list honest.
 */
export const UNKEYED_POSTS: Readonly<Record<string, string>> = {
  previewInvoiceTax: 'computes a preview and stores nothing',
  validateDataImport: 'checks a file and writes nothing',
  exportData: 'reads; the answer is a streamed file',
  exportDatev:
    'the answer is a streamed zip that a stored answer could not replay; each run is recorded, and select=not_exported never books a document twice',
  exportGdpdu: 'reads; the answer is a streamed file',
  regenerateInvoicePdf:
    'the answer is a file (not kept); rendering again replaces the stored PDF, so a repeat is harmless',
  createClient:
    'billing keeps its own Idempotency-Key for client creates (per organization and mode, for good; see docs/adr/0033-clients-billing.md)',
};

/** Whether a row honours Idempotency-Key at the gateway. */
export function isKeyedRow(def: Pick<AnyRoute, 'method' | 'operationId'>): boolean {
  return def.method === 'POST' && !(def.operationId in UNKEYED_POSTS);
}

/** A keyed row documents the 409 of a reused key or one still in progress. */
export function withIdempotencyAnswers(def: AnyRoute): AnyRoute {
  if (!isKeyedRow(def) || def.errors?.includes(409)) return def;
  return { ...def, errors: [...(def.errors ?? []), 409] };
}

/** operationIds of the keyed rows. */
export function keyedOperations(routes: readonly AnyRoute[]): ReadonlySet<string> {
  return new Set(routes.filter(isKeyedRow).map((r) => r.operationId));
}

/**
 * Whose key it is: the API key (or dashboard user), the organization acted on and the data mode.
 * Two keys of one organization keep their keys apart; a system key acting on two organizations too.
 */
export function adminKeyScope(req: Pick<FastifyRequest, 'principal' | 'orgScope'>): string {
  const p = req.principal;
  if (!p) throw new Error('Idempotency-Key looked at before authentication');
  const org = req.orgScope;
  return org
    ? `${principalClientId(p)}|org:${org.organizationId}|${org.mode}`
    : `${principalClientId(p)}|system|${p.mode}`;
}

/** The /v1 alias and /api/v1 are one route. */
export function adminKeyPath(req: Pick<FastifyRequest, 'url'>): string {
  const path = req.url.split('?')[0] ?? req.url;
  return path.startsWith('/v1/') ? `/api${path}` : path;
}

export const ADMIN_KEY_SCOPE_TEXT = 'scoped to the API key (or dashboard user), the organization and the data mode';

/** The plugin options of the Admin API: records in the gateway's store, answers sealed with SECRETS_KEYRING. */
export function adminIdempotency(opts: {
  store: DocumentStore;
  keyring: string;
  routes: readonly AnyRoute[];
  clock?: Clock;
}): IdempotencyPluginOptions {
  return {
    records: gatewayIdempotencyRecords(opts),
    operations: keyedOperations(opts.routes),
    scopeOf: adminKeyScope,
    pathOf: adminKeyPath,
  };
}

/** The Admin OpenAPI transform with Idempotency-Key on the keyed operations. */
export function documentAdminIdempotency(
  transform: OpenApiTransform,
  operations: ReadonlySet<string>,
): OpenApiTransform {
  return documentIdempotency(transform, operations, ADMIN_KEY_SCOPE_TEXT);
}
