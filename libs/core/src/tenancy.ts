import { z } from 'zod';
import { ValidationError } from './errors';

/**
 * Tenancy and identifiers, once for every service: the data mode, the tenant key (organization and
 * mode), its wire form (`organizationId` + `testMode`, as the gRPC contracts carry it), 24-hex
 * document identifiers, and list paging with one default per list kind.
 */

/** The data mode of a key, a record and everything it sees: live money or test data. */
export type Mode = 'live' | 'test';

export const MODES: readonly Mode[] = ['live', 'test'];

/** Whose data: one organization in one data mode. Every merchant document is scoped by both. */
export interface TenantKey {
  organizationId: string;
  mode: Mode;
}

/** The tenant as the service contracts carry it. */
export interface WireTenant {
  organizationId: string;
  testMode: boolean;
}

export const modeOf = (testMode: boolean): Mode => (testMode ? 'test' : 'live');

/** The tenant a request names, its organization identifier checked. */
export function tenantOf(wire: WireTenant): TenantKey {
  return { organizationId: requireObjectId(wire.organizationId, 'organizationId'), mode: modeOf(wire.testMode) };
}

/** The wire form of a tenant (or of anything carrying one, such as a caller's principal). */
export function toWire(tenant: TenantKey): WireTenant {
  return { organizationId: tenant.organizationId, testMode: tenant.mode === 'test' };
}

/** Shape of a 24-hex document identifier. */
export const OBJECT_ID_PATTERN = /^[0-9a-f]{24}$/;

export const OBJECT_ID_MESSAGE = 'must be a 24-hex identifier';

export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID_PATTERN.test(value);
}

/** `value` when it is a 24-hex identifier, else a ValidationError naming `field` (400 / INVALID_ARGUMENT). */
export function requireObjectId(value: unknown, field = 'id'): string {
  if (!isObjectId(value)) throw new ValidationError(`${field} ${OBJECT_ID_MESSAGE}`, { field });
  return value;
}

/** The zod schema of a 24-hex identifier; `what` prefixes the message when given (`siteId must be …`). */
export function objectId(what?: string): z.ZodString {
  return z.string().regex(OBJECT_ID_PATTERN, what ? `${what} ${OBJECT_ID_MESSAGE}` : OBJECT_ID_MESSAGE);
}

/**
 * Page sizes when a list request names none, per kind of list. They differ on purpose: the Admin
 * transaction and checkout lists answer 10 as the specification shows; the backends' other lists 20.
 */
export const PAGE_DEFAULTS = {
  /** Admin lists of transactions and checkouts (the spec's default). */
  transactions: 10,
  /** Every other list a backend pages (sites, domains, provider records, ...). */
  records: 20,
} as const;

export type ListKind = keyof typeof PAGE_DEFAULTS;

/** The most items one page may hold. */
export const MAX_PAGE_LIMIT = 100;

export interface Paging {
  page: number;
  limit: number;
}

/**
 * The page a list request asks for: page from 1, limit from 1 to MAX_PAGE_LIMIT, the kind's default
 * for a missing (0, as proto3 sends it) page size. Out-of-range values are clamped, not refused.
 */
export function pageOf(req: { page?: number | null; limit?: number | null }, kind: ListKind): Paging {
  return {
    page: Math.max(1, req.page || 1),
    limit: Math.min(MAX_PAGE_LIMIT, Math.max(1, req.limit || PAGE_DEFAULTS[kind])),
  };
}

/**
 * Matches counted at most for a list's total beyond the page's end: a larger list's total is a
 * lower bound (`totalIsLowerBound`), so a page costs the same with 10,001 or 10,000,000 matches.
 */
export const LIST_COUNT_BOUND = 10_000;

/**
 * The bound of lists whose documents are large (invoices, credit notes: 2 KB and more of JSON,
 * stored out of line): counting visits each match's row and reads the field the list is sorted
 * by, which costs about 20 ms per 1,000 of them on PostgreSQL.
 */
export const DOCUMENT_LIST_COUNT_BOUND = 1_000;

/**
 * `FindOptions.countUpTo` of a list page: up to `bound` matches, or up to the page's end when that
 * is further, and one more (so a total past it says a next page exists).
 */
export function countUpToOf(paging: Paging, bound: number = LIST_COUNT_BOUND): number {
  return Math.max(bound, paging.page * paging.limit) + 1;
}

/** A counted page's total as the lists answer it: `totalIsLowerBound` only when counting stopped. */
export function boundedTotal(page: { total: number; totalIsLowerBound?: boolean }): {
  total: number;
  totalIsLowerBound?: true;
} {
  return page.totalIsLowerBound ? { total: page.total, totalIsLowerBound: true } : { total: page.total };
}
