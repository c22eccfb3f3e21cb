import type { checkoutPayments } from '@paymesh/proto';
import { modeOf, pageOf, requireObjectId, tenantOf, ValidationError } from '@paymesh/core';
import { normalizeCurrency } from '../../domain/iso-codes';
import type { PaymentsDeps } from '../../app/payments-deps';
import { getTransaction, listTransactions } from '../../app/get-transaction';
import { updateTransaction } from '../../app/update-transaction';
import { deleteTransaction } from '../../app/delete-transaction';
import { createManualTransaction } from '../../app/create-manual-transaction';
import { getTransactionTax } from '../../app/transaction-tax';
import { recalculateTransactionTax } from '../../app/recalculate-transaction-tax';
import { resolveChargeback } from '../../app/resolve-chargeback';
import { toTransactionRecord } from '../payments-mapping';
import { type PaymentsRpcKit, opt } from './kit';

/** Transactions of the Admin API: list, read, update, delete, manual ones, their tax and chargebacks. */
export function transactionHandlers(
  deps: PaymentsDeps,
  { rpc }: PaymentsRpcKit,
): Pick<
  checkoutPayments.CheckoutPaymentsServiceServer,
  | 'listTransactions'
  | 'getTransaction'
  | 'updateTransaction'
  | 'deleteTransaction'
  | 'createManualTransaction'
  | 'getTransactionTax'
  | 'recalculateTransactionTax'
  | 'resolveChargeback'
> {
  return {
    listTransactions: rpc('ListTransactions', async (req: checkoutPayments.ListTransactionsRequest) => {
      const currency = req.currency ? normalizeCurrency(req.currency) : undefined;
      if (req.currency && !currency)
        throw new ValidationError('currency must be an ISO 4217 currency code', { field: 'currency' });
      const res = await listTransactions(deps, {
        ...tenantOf(req),
        statuses: req.statuses,
        currency,
        createdFrom: opt(req.createdFrom),
        createdTo: opt(req.createdTo),
        siteIds: req.siteIds,
        providerIds: req.providerIds,
        externalReference: opt(req.externalReference),
        email: opt(req.email),
        ids: req.ids,
        ...pageOf(req, 'transactions'),
      });
      return {
        items: res.items.map(toTransactionRecord),
        total: res.total,
        totalIsLowerBound: res.totalIsLowerBound === true,
        page: res.page,
        limit: res.limit,
      };
    }),
    getTransaction: rpc('GetTransaction', async (req: checkoutPayments.TransactionAdminRef) =>
      toTransactionRecord(
        await getTransaction(deps, requireObjectId(req.organizationId, 'organizationId'), modeOf(req.testMode), req.id),
      ),
    ),
    updateTransaction: rpc('UpdateTransaction', async (req: checkoutPayments.UpdateTransactionRequest) => {
      const doc = await updateTransaction(
        deps,
        { ...tenantOf(req), id: req.id },
        {
          metadata: req.metadata?.entries,
          notes: req.notes,
          externalReference: req.externalReference,
          status: req.status,
          reason: opt(req.reason),
        },
      );
      return toTransactionRecord(doc);
    }),
    deleteTransaction: rpc('DeleteTransaction', async (req: checkoutPayments.TransactionAdminRef) => {
      await deleteTransaction(deps, {
        ...tenantOf(req),
        id: req.id,
      });
      return { id: req.id, deleted: true };
    }),
    createManualTransaction: rpc(
      'CreateManualTransaction',
      async (req: checkoutPayments.CreateManualTransactionRequest) => {
        const doc = await createManualTransaction(deps, {
          ...tenantOf(req),
          siteId: req.siteId,
          amount: req.amount,
          currency: req.currency,
          externalReference: opt(req.externalReference),
          invoiceNumber: opt(req.invoiceNumber),
          status: req.status,
          reason: req.reason,
          email: opt(req.email),
          clientId: opt(req.clientId),
          ipnUrl: opt(req.ipnUrl),
          metadata: req.metadata,
        });
        return toTransactionRecord(doc);
      },
    ),
    getTransactionTax: rpc('GetTransactionTax', async (req: checkoutPayments.TransactionAdminRef) => ({
      json: JSON.stringify(
        await getTransactionTax(deps, {
          ...tenantOf(req),
          id: req.id,
        }),
      ),
    })),
    recalculateTransactionTax: rpc(
      'RecalculateTransactionTax',
      async (req: checkoutPayments.RecalculateTransactionTaxRequest) => ({
        json: JSON.stringify(
          await recalculateTransactionTax(deps, { ...tenantOf(req), id: req.id }, { recheckVatId: req.recheckVatId }),
        ),
      }),
    ),
    resolveChargeback: rpc('ResolveChargeback', async (req: checkoutPayments.ResolveChargebackRequest) =>
      toTransactionRecord(
        await resolveChargeback(
          deps,
          { ...tenantOf(req), id: req.id },
          {
            chargebackId: req.chargebackId,
            status: req.status,
            reason: opt(req.reason) ?? null,
            actor: req.actor || 'unknown',
          },
        ),
      ),
    ),
  };
}
