import { call, jsonCaller, makeClient } from '@paymesh/grpc';
import { checkoutPayments, tax } from '@paymesh/proto';
import { taxRpc } from '@paymesh/contracts';
import { toWire } from '@paymesh/core';

import type { DataIoRemote, ExportTransaction } from '../app/data-io-port';

/** {@link DataIoRemote} over the tax service's `ListTaxRates`/`CreateTaxRate` and checkout's `ListTransactions`. */
export function grpcDataIoPort(
  taxAddress: string,
  checkoutAddress: string,
  deadlineMs: number,
): DataIoRemote & { close(): void } {
  const taxClient = makeClient(tax.TaxServiceClient, taxAddress);
  const payments = makeClient(checkoutPayments.CheckoutPaymentsServiceClient, checkoutAddress);
  const taxCalls = jsonCaller(taxClient, taxRpc, { deadlineMs, target: 'tax' });
  return {
    async taxRates(key) {
      const out: { code: string; country: string; validFrom: string }[] = [];
      for (let page = 1; ; page++) {
        const rates = await taxCalls.json('listTaxRates', toWire(key), { body: { page, limit: 100 } });
        out.push(...rates.items.map((r) => ({ code: r.code, country: r.country, validFrom: r.validFrom })));
        if (rates.items.length < 100) return out;
      }
    },
    async createTaxRate(key, rate) {
      await taxCalls.json('createTaxRate', toWire(key), { body: rate });
    },
    async transactions(key, filter, page, limit) {
      const res = await call(
        payments,
        payments.listTransactions,
        {
          ...toWire(key),
          statuses: filter.statuses ?? [],
          createdFrom: filter.createdFrom,
          createdTo: filter.createdTo,
          siteIds: filter.siteIds ?? [],
          providerIds: [],
          ids: [],
          page,
          limit,
        },
        { deadlineMs, target: 'checkout' },
      );
      return res.items.map((t): ExportTransaction => ({
        id: t.id,
        createdAt: t.createdAt,
        siteId: t.siteId,
        status: t.status,
        amount: Number(t.amount),
        currency: t.currency,
        // The export writes an absent value as an empty cell.
        email: t.email ?? '',
        externalReference: t.externalReference ?? '',
        invoiceNumber: t.invoiceNumber ?? '',
        clientId: t.clientId ?? '',
        providerType: t.providerType ?? '',
        manual: t.manual,
        refundedAmount: t.refunds.reduce((sum, r) => sum + Number(r.amount), 0),
      }));
    },
    async transactionProviders(key, ids) {
      const out = new Map<string, string>();
      for (let at = 0; at < ids.length; at += 100) {
        const chunk = ids.slice(at, at + 100);
        const res = await call(
          payments,
          payments.listTransactions,
          {
            ...toWire(key),
            statuses: [],
            siteIds: [],
            providerIds: [],
            ids: chunk,
            page: 1,
            limit: chunk.length,
          },
          { deadlineMs, target: 'checkout' },
        );
        for (const t of res.items) out.set(t.id, t.providerType ?? '');
      }
      return out;
    },
    async taxRecords(key, from, to, page, limit) {
      const res = await taxCalls.json('listTaxRecords', toWire(key), {
        body: { startDate: from, endDate: to, page, limit },
      });
      return res.data;
    },
    close() {
      taxClient.close();
      payments.close();
    },
  };
}
