import { call, callEnvelope, jsonCaller, makeClient } from '@paymesh/grpc';
import { billing } from '@paymesh/proto';
import { billingFileRpc, billingRpc } from '@paymesh/contracts';
import { toWire } from '@paymesh/core';
import type { BillingPort } from '../app/billing-port';

/** {@link BillingPort} over billing's RPCs (typed by `billingRpc` of @paymesh/contracts). */
export function grpcBillingPort(
  address: string,
  deadlineMs: number,
  pdfDeadlineMs: number,
): BillingPort & { close(): void } {
  const client = makeClient(billing.BillingServiceClient, address);
  const cfg = { deadlineMs, target: 'billing' };
  const rpc = jsonCaller(client, billingRpc, cfg);
  return {
    async clientEmail(key, clientId) {
      return (await rpc.json('getClient', toWire(key), { id: clientId })).email;
    },
    async timeZone(key) {
      const res = await call(client, client.getInvoicingSettings, toWire(key), cfg);
      return res.timeZone || 'UTC';
    },
    async previewTax(key, invoice) {
      return (await rpc.json('previewInvoiceTax', toWire(key), { body: invoice })).totals;
    },
    async createInvoice(key, invoice, idempotencyKey, actor) {
      return rpc.json('createInvoice', toWire(key), { body: invoice, idempotencyKey, actor });
    },
    async issueInvoice(key, invoiceId) {
      return rpc.json('issueInvoice', toWire(key), { id: invoiceId, body: {} });
    },
    async sendInvoice(key, invoiceId) {
      await rpc.json('sendInvoiceEmail', toWire(key), { id: invoiceId, body: {} });
    },
    async proformaPreviewsEnabled(key) {
      const res = await call(client, client.getPortalSettings, toWire(key), cfg);
      return res.proformaPreviewsEnabled;
    },
    async proformaPreview(key, preview) {
      const res = await callEnvelope(
        client,
        client.renderProformaPreview,
        billingFileRpc.renderProformaPreview,
        toWire(key),
        { body: preview },
        { deadlineMs: pdfDeadlineMs, target: 'billing' },
      );
      return { pdf: Buffer.from(res.pdf), filename: res.filename };
    },
    close() {
      client.close();
    },
  };
}
