import { createHash } from 'node:crypto';
import type { TxScope } from '@paymesh/store';
import { counterPeriodKey, formatDocumentNumber, layoutIdentity, type NumberingLayout } from '../domain/numbering';
import type { OrgKey } from './deps';

export type DocumentKind = 'invoice' | 'credit_note';

/**
 * Draws the next number of a document kind inside the caller's store transaction: the counter of
 * (organization, mode, kind, layout identity, counter period) moves only if the transaction commits,
 * so a refused or rolled-back issue leaves no gap and concurrent issues queue on the counter row.
 * `day` is the document's local calendar day (organization time zone).
 */
export async function drawDocumentNumber(
  tx: Pick<TxScope, 'nextSequence'>,
  key: OrgKey,
  kind: DocumentKind,
  layout: NumberingLayout,
  day: string,
): Promise<string> {
  const identity = createHash('sha256').update(layoutIdentity(layout)).digest('hex').slice(0, 24);
  const counter = `billing:${kind}:${key.organizationId}:${key.mode}:${identity}:${counterPeriodKey(layout, day)}`;
  const sequence = await tx.nextSequence(counter, layout.startNumber);
  return formatDocumentNumber(layout, day, sequence);
}
