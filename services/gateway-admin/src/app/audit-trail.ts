import { createHash } from 'node:crypto';
import { ConflictError, ErrorCode, GroupCommit, ValidationError, type Logger } from '@paymesh/core';
import type { DocumentStore, Filter } from '@paymesh/store';
import type { AuditBatchData } from '@paymesh/contracts';
import { AUDIT_EVENTS, type AuditEventDoc } from '../store/collections';

/** Id of the n-th record of an audit event: the same on every redelivery, so projecting twice adds nothing. */
function recordId(eventId: string, index: number): string {
  return createHash('sha256').update(`${eventId}\n${index}`).digest('hex').slice(0, 24);
}

type AuditDoc = Omit<AuditEventDoc, 'version'>;

/** The documents of one audit event (a transaction's changes, from any service): one per changed resource. */
function auditDocs(eventId: string, batch: AuditBatchData): AuditDoc[] {
  return batch.records.map((r, index): AuditDoc => {
    const id = recordId(eventId, index);
    return {
      id,
      eventId,
      index,
      at: batch.occurredAt,
      key: `${batch.occurredAt}|${id}`,
      organizationId: r.organizationId,
      service: batch.service,
      requestId: batch.requestId,
      actor: batch.actor,
      actorKey: `${batch.actor.type}:${batch.actor.id}`,
      ...(batch.initiator ? { initiator: batch.initiator } : {}),
      operation: r.operation,
      action: r.action,
      resourceType: r.resourceType,
      resourceId: r.resourceId,
      beforeKnown: r.beforeKnown,
      changes: r.changes,
    };
  });
}

interface ProjectedEvent {
  eventId: string;
  docs: AuditDoc[];
}

const isDuplicate = (err: unknown) => err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY;

/**
 * Projects audit events into the append-only `audit_events` collection. The events handed in
 * while a write is under way go together in the next one (one statement for all of them: under
 * load, one per round trip instead of one per event). A redelivered event finds its documents
 * there (same ids) and adds nothing: when a group's write meets a taken key, each of its events
 * is written alone, and the one that was projected before is skipped.
 */
export function auditProjector(deps: {
  store: DocumentStore;
  logger: Logger;
}): (eventId: string, batch: AuditBatchData) => Promise<void> {
  const audit = () => deps.store.collection<AuditEventDoc>(AUDIT_EVENTS);
  const writeOne = async (e: ProjectedEvent) => {
    try {
      await audit().insertMany(e.docs);
    } catch (err) {
      // All or nothing: a duplicate means this event was projected before.
      if (!isDuplicate(err)) throw err;
      deps.logger.debug({ eventId: e.eventId }, 'audit event projected already');
    }
  };
  const group = new GroupCommit<ProjectedEvent>(async (events) => {
    if (events.length === 1 && events[0]) return writeOne(events[0]);
    try {
      await audit().insertMany(events.flatMap((e) => e.docs));
    } catch (err) {
      if (!isDuplicate(err)) throw err;
      for (const e of events) await writeOne(e);
    }
  });
  return (eventId, batch) => group.add({ eventId, docs: auditDocs(eventId, batch) });
}

export interface AuditQuery {
  resourceType?: string;
  resourceId?: string;
  /** `<type>:<id>` (`api_key:ak_…`, `process:billing/transaction-status`) or a bare id. */
  actor?: string;
  operation?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit: number;
}

export interface AuditPage {
  items: AuditEventDoc[];
  nextCursor: string | null;
}

function decodeCursor(cursor: string): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+Z\|[0-9a-f]{24}$/.test(key))
    throw new ValidationError('cursor: not a cursor of this list', { field: 'cursor' });
  return key;
}

/** An organization's audit events, newest first, filtered; `nextCursor` continues after the last one. */
export async function listAuditEvents(store: DocumentStore, organizationId: string, q: AuditQuery): Promise<AuditPage> {
  const filter: Filter = { organizationId };
  if (q.resourceType) filter.resourceType = q.resourceType;
  if (q.resourceId) filter.resourceId = q.resourceId;
  if (q.operation) filter.operation = q.operation;
  if (q.actor) {
    if (q.actor.includes(':')) filter.actorKey = q.actor;
    else filter['actor.id'] = q.actor;
  }
  const key: { $gte?: string; $lt?: string; $lte?: string } = {};
  if (q.from) key.$gte = q.from;
  // An instant's key is `<at>|<id>`: everything at `to` itself sorts below `<to>|~`.
  if (q.to) key.$lte = `${q.to}|~`;
  if (q.cursor) key.$lt = decodeCursor(q.cursor);
  if (Object.keys(key).length > 0) filter.key = key;
  const page = await store
    .collection<AuditEventDoc>(AUDIT_EVENTS)
    .find(filter, { sort: { key: -1 }, limit: q.limit + 1 });
  const items = page.items.slice(0, q.limit);
  const last = items[items.length - 1];
  const nextCursor = page.items.length > q.limit && last ? Buffer.from(last.key, 'utf8').toString('base64url') : null;
  return { items, nextCursor };
}
