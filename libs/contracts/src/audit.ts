import { z } from 'zod';

/** Subject of the audit events every service's store writes with its changes (see AuditingStore). */
export const AUDIT_RECORDED_SUBJECT = 'audit.entry.recorded';

export const auditActor = z.object({
  type: z.enum(['api_key', 'user', 'system_key', 'buyer', 'portal_session', 'provider', 'process']),
  id: z.string().min(1).max(256),
  name: z.string().max(256).optional(),
});
export type AuditActor = z.infer<typeof auditActor>;

export const auditChange = z.object({
  path: z.string(),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
});

export const auditRecord = z.object({
  organizationId: z.string().nullable(),
  operation: z.string(),
  action: z.enum(['create', 'update', 'delete']),
  resourceType: z.string(),
  resourceId: z.string(),
  beforeKnown: z.boolean(),
  changes: z.array(auditChange),
});

/** Data of an `audit.entry.recorded` event: one store transaction's changes of audited resources. */
export const auditBatch = z.object({
  service: z.string(),
  requestId: z.string(),
  actor: auditActor,
  initiator: auditActor.optional(),
  occurredAt: z.string(),
  records: z.array(auditRecord).min(1),
});
export type AuditBatchData = z.infer<typeof auditBatch>;
