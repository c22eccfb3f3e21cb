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

/** Thrown inside a preview's transaction so that the numbers drawn are rolled back. */
class PreviewOnly extends Error {
  constructor(readonly numbers: { invoice: string; creditNote: string }) {
    super('number preview');
  }
}

/**
 * The numbers the next invoice and credit note issued today would get under these layouts: drawn
 * as an issue draws them, in a transaction that is then rolled back, so nothing moves (a changed
 * layout starts a counter of its own, at its startNumber). Site prefixes are not applied.
 */
export async function previewDocumentNumbers(
  store: { transaction<R>(fn: (tx: TxScope) => Promise<R>): Promise<R> },
  key: OrgKey,
  layouts: { invoice: NumberingLayout; creditNote: NumberingLayout },
  day: string,
): Promise<{ invoice: string; creditNote: string }> {
  try {
    await store.transaction(async (tx) => {
      const invoice = await drawDocumentNumber(tx, key, 'invoice', layouts.invoice, day);
      const creditNote = await drawDocumentNumber(tx, key, 'credit_note', layouts.creditNote, day);
      throw new PreviewOnly({ invoice, creditNote });
    });
  } catch (err) {
    if (err instanceof PreviewOnly) return err.numbers;
    throw err;
  }
  throw new Error('the preview transaction committed');
}
