import { call, makeClient } from '@paymesh/grpc';
import { billing } from '@paymesh/proto';
import { clientRecord, invoiceRecord, invoiceTotals } from '@paymesh/contracts';
import { z } from 'zod';
import type { BillingPort, OrgKey } from '../app/billing-port';

/** {@link BillingPort} over billing's JSON RPCs. */
export function grpcBillingPort(
  address: string,
  deadlineMs: number,
  pdfDeadlineMs: number,
): BillingPort & { close(): void } {
  const client = makeClient(billing.BillingServiceClient, address);
  const cfg = { deadlineMs, target: 'billing' };
  const req = (
    key: OrgKey,
    id: string,
    body: unknown,
    extra: Partial<billing.BillingJsonRequest> = {},
  ): billing.BillingJsonRequest => ({
    organizationId: key.organizationId,
    testMode: key.mode === 'test',
    id,
    bodyJson: body === undefined ? '' : JSON.stringify(body),
    actor: '',
    idempotencyKey: '',
    ...extra,
  });
  const json = (res: billing.BillingJsonResponse): unknown => JSON.parse(res.json);
  return {
    async clientEmail(key, clientId) {
      const res = await call(client, client.getClient, req(key, clientId, undefined), cfg);
      return clientRecord.pick({ email: true }).parse(json(res)).email;
    },
    async timeZone(key) {
      const res = await call(
        client,
        client.getInvoicingSettings,
        { organizationId: key.organizationId, testMode: key.mode === 'test' },
        cfg,
      );
      return res.timeZone || 'UTC';
    },
    async previewTax(key, invoice) {
      const res = await call(client, client.previewInvoiceTax, req(key, '', invoice), cfg);
      return z.object({ totals: invoiceTotals }).parse(json(res)).totals;
    },
    async createInvoice(key, invoice, idempotencyKey, actor) {
      const res = await call(client, client.createInvoice, req(key, '', invoice, { idempotencyKey, actor }), cfg);
      return invoiceRecord.parse(json(res));
    },
    async issueInvoice(key, invoiceId) {
      const res = await call(client, client.issueInvoice, req(key, invoiceId, {}), cfg);
      return invoiceRecord.parse(json(res));
    },
    async sendInvoice(key, invoiceId) {
      await call(client, client.sendInvoiceEmail, req(key, invoiceId, {}), cfg);
    },
    async proformaPreviewsEnabled(key) {
      const res = await call(
        client,
        client.getPortalSettings,
        { organizationId: key.organizationId, testMode: key.mode === 'test' },
        cfg,
      );
      return res.proformaPreviewsEnabled;
    },
    async proformaPreview(key, preview) {
      const res = await call(client, client.renderProformaPreview, req(key, '', preview), {
        deadlineMs: pdfDeadlineMs,
        target: 'billing',
      });
      return { pdf: Buffer.from(res.pdf), filename: res.filename };
    },
    close() {
      client.close();
    },
  };
}
