import { isDeepStrictEqual } from 'node:util';
import {
  ConflictError,
  currentRequestId,
  ErrorCode,
  isDomainError,
  UnavailableError,
  UnprocessableError,
} from '@paymesh/core';
import type { CalculateTaxRequest, TaxCalculation, TransactionTaxView } from '@paymesh/contracts';
import type { Mode } from '../domain/site';
import { pinnedInput } from '../domain/tax-basis';
import { TAX_HISTORY_LIMIT, taxIsOpen, type TransactionDoc } from '../domain/transaction';
import { TRANSACTIONS } from '../store/collections';
import { loadTransactionForOrg } from './access';
import type { PaymentsDeps } from './payments-deps';
import { transactionTaxViewOf } from './transaction-tax';

function assertTaxOpen(doc: TransactionDoc): void {
  if (!taxIsOpen(doc.status)) {
    throw new ConflictError('tax of a final transaction is fixed; corrections go through an invoice or credit note', {
      code: ErrorCode.TRANSACTION_TAX_FINAL,
    });
  }
}

/** The same answer apart from when it was computed. */
function sameTax(a: TaxCalculation | null | undefined, b: TaxCalculation): boolean {
  return !!a && isDeepStrictEqual({ ...a, calculatedAt: '' }, { ...b, calculatedAt: '' });
}

/**
 * Recomputes the tax of an initiated or pending transaction from its stored input with today's
 * rates (tax point today), reusing the stored VAT ID check unless `recheckVatId`. The previous
 * answer is kept in `taxHistory`. Refused when the transaction is final (409 TRANSACTION_TAX_FINAL)
 * or the new total gross is not what the buyer is charged (409 TAX_CHANGES_AMOUNT: net prices
 * whose tax changed). An answer equal to the stored one writes nothing.
 */
export async function recalculateTransactionTax(
  deps: PaymentsDeps,
  ref: { organizationId: string; mode: Mode; id: string },
  opts: { recheckVatId: boolean },
): Promise<TransactionTaxView> {
  const doc = await loadTransactionForOrg(deps, ref.organizationId, ref.mode, ref.id);
  assertTaxOpen(doc);
  if (doc.taxSource?.kind === 'invoice') {
    throw new UnprocessableError(
      `the tax of this transaction follows invoice ${doc.taxSource.invoiceId} (allocated from its tax snapshot); it is not recalculated`,
      {
        code: ErrorCode.TRANSACTION_TAX_NO_INPUT,
      },
    );
  }
  if (!doc.taxInput) {
    throw new UnprocessableError(
      'the transaction has no tax input to recalculate from (manual transactions carry no tax)',
      {
        code: ErrorCode.TRANSACTION_TAX_NO_INPUT,
      },
    );
  }
  const { vatIdCheck, ...rest } = doc.taxInput;
  const request: CalculateTaxRequest = {
    ...rest,
    date: deps.clock.now().toISOString().slice(0, 10),
    ...(vatIdCheck && !opts.recheckVatId ? { vatIdCheck } : {}),
  };
  let tax: TaxCalculation;
  try {
    tax = await deps.tax.calculate(request);
  } catch (err) {
    if (isDomainError(err) && err.kind === 'validation') throw err;
    deps.logger.warn(
      { err: err instanceof Error ? err.message : String(err), transactionId: doc.id },
      'tax service unavailable; tax not recalculated',
    );
    throw new UnavailableError('the tax cannot be computed right now; retry shortly', {
      code: ErrorCode.TAX_UNAVAILABLE,
      cause: err,
    });
  }
  if (tax.totalGross !== doc.amount) {
    throw new ConflictError(
      `the recalculated total ${tax.totalGross} differs from the amount charged (${doc.amount}); nothing was changed`,
      {
        code: ErrorCode.TAX_CHANGES_AMOUNT,
      },
    );
  }
  const input = pinnedInput(request, tax);
  const stored = await deps.store.collection<TransactionDoc>(TRANSACTIONS).update(
    doc.id,
    (cur) => {
      assertTaxOpen(cur);
      if (sameTax(cur.tax, tax) && isDeepStrictEqual(cur.taxInput, input)) return null;
      const now = deps.clock.now().toISOString();
      const previous = {
        tax: cur.tax ?? null,
        input: cur.taxInput ?? null,
        replacedAt: now,
        requestId: currentRequestId() ?? null,
      };
      return {
        ...cur,
        tax,
        taxInput: input,
        taxHistory: [...(cur.taxHistory ?? []), previous].slice(-TAX_HISTORY_LIMIT),
        updatedAt: now,
      };
    },
    undefined,
    doc,
  );
  deps.logger.info(
    { transactionId: doc.id, totalTax: tax.totalTax, recheckVatId: opts.recheckVatId },
    'transaction tax recalculated',
  );
  return transactionTaxViewOf(stored);
}
