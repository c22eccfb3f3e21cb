import { z } from 'zod';
import { text } from '@paymesh/http';
import { listAuditEvents } from '../../app/audit-trail';
import { resource } from '../route-table';
import { parseDateRange } from './list-query';

const actorSchema = z.object({
  type: z
    .string()
    .describe('api_key, user, system_key, buyer, portal_session, provider (a webhook) or process (an automatic one)'),
  id: z.string().describe('Key id, user id, portal sign-in id, `<provider type>/<provider id>` or process name'),
  name: z.string().optional().describe('The API key’s name, the buyer’s e-mail'),
});

export const auditEvent = z.object({
  id: z.string(),
  at: z.string().describe('When the change was committed (RFC 3339)'),
  organizationId: z.string().nullable(),
  service: z.string().describe('The service that stored the change'),
  requestId: z.string().describe('X-Request-ID of the request (or of the automatic pass) that caused it'),
  actor: actorSchema,
  initiator: actorSchema
    .optional()
    .describe('For an automatic process: the actor whose request caused the event it reacted to'),
  operation: z.string().describe('The Admin or Main Backend operationId, or the automatic process'),
  action: z.enum(['create', 'update', 'delete']),
  resourceType: z.string(),
  resourceId: z.string(),
  beforeKnown: z.boolean().describe('false: the document was replaced unread, so only `after` values are shown'),
  changes: z
    .array(z.object({ path: z.string(), before: z.unknown().optional(), after: z.unknown().optional() }))
    .describe('Changed fields (dotted paths); secrets and encrypted values are masked'),
});

export const auditEventPage = z.object({
  items: z.array(auditEvent),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next (older) page; null on the last'),
});

const auditQuery = z.object({
  resource: text(64).optional().describe('Resource type (invoice, credit_note, transaction, client, api_key, …)'),
  id: text(128).optional().describe('Resource id'),
  actor: text(300).optional().describe('`<type>:<id>` (api_key:<keyId>, user:<userId>, process:<name>) or a bare id'),
  operation: text(128).optional(),
  startDate: text(40).optional().describe('YYYY-MM-DD (UTC day) or RFC 3339; inclusive'),
  endDate: text(40).optional().describe('YYYY-MM-DD (UTC day, included) or RFC 3339; inclusive'),
  cursor: text(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

/** The audit trail: scope `audit_event:read`, Admin role; append-only (no write route exists). */
const audit = resource({ tag: 'Audit trail', scopePrefix: 'audit_event' });

export const auditEventRoutes = [
  audit({
    method: 'GET',
    path: '/audit-events',
    operationId: 'listAuditEvents',
    role: 'Admin',
    response: auditEventPage,
    summary:
      'Every change of the organization’s resources, newest first: when, who (API key, user, system key, buyer, provider, automatic process), request ID, operation, resource and changed fields (filters resource, id, actor, operation, startDate/endDate; cursor paging)',
    query: auditQuery,
    async handler({ deps, org, query }) {
      const { createdFrom, createdTo } = parseDateRange(query.startDate, query.endDate);
      const page = await listAuditEvents(deps.store, org.organizationId, {
        ...(query.resource ? { resourceType: query.resource } : {}),
        ...(query.id ? { resourceId: query.id } : {}),
        ...(query.actor ? { actor: query.actor } : {}),
        ...(query.operation ? { operation: query.operation } : {}),
        ...(createdFrom ? { from: createdFrom } : {}),
        ...(createdTo ? { to: createdTo } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
        limit: query.limit,
      });
      return {
        items: page.items.map((e) => ({
          id: e.id,
          at: e.at,
          organizationId: e.organizationId,
          service: e.service,
          requestId: e.requestId,
          actor: e.actor,
          ...(e.initiator ? { initiator: e.initiator } : {}),
          operation: e.operation,
          action: e.action,
          resourceType: e.resourceType,
          resourceId: e.resourceId,
          beforeKnown: e.beforeKnown,
          changes: e.changes,
        })),
        nextCursor: page.nextCursor,
      };
    },
  }),
];
