import { ValidationError, requireObjectId } from '@paymesh/core';
import { EMAILS, type EmailDoc } from '../store/collections';
import type { EmailDeps } from './email-deps';

/** The e-mails of one source document (an invoice or credit note) of the organization, newest first. */
export async function listEmails(
  deps: Pick<EmailDeps, 'store'>,
  q: { organizationId: string; mode: 'live' | 'test'; sourceKind: string; sourceId: string },
): Promise<EmailDoc[]> {
  requireObjectId(q.organizationId, 'organizationId');
  if (q.sourceKind !== 'invoice' && q.sourceKind !== 'credit_note' && q.sourceKind !== 'portal_otp')
    throw new ValidationError('sourceKind must be invoice, credit_note or portal_otp', { field: 'sourceKind' });
  requireObjectId(q.sourceId, 'sourceId');
  const page = await deps.store
    .collection<EmailDoc>(EMAILS)
    .find(
      { organizationId: q.organizationId, mode: q.mode, 'source.kind': q.sourceKind, 'source.id': q.sourceId },
      { sort: { createdAt: -1 } },
    );
  return page.items;
}
