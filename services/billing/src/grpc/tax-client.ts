import { call, jsonCaller, makeClient } from '@paymesh/grpc';
import { tax } from '@paymesh/proto';
import { taxRpc } from '@paymesh/contracts';
import type { InvoiceTaxPort } from '../app/invoice-deps';

/** {@link InvoiceTaxPort} over the tax service's `GetTaxSettings` and `CalculateTax`. */
export function grpcTaxPort(address: string, deadlineMs: number): InvoiceTaxPort & { close(): void } {
  const client = makeClient(tax.TaxServiceClient, address);
  const calls = jsonCaller(client, taxRpc, { deadlineMs, target: 'tax' });
  return {
    async settings(key) {
      const s = await call(
        client,
        client.getTaxSettings,
        { organizationId: key.organizationId, testMode: key.mode === 'test' },
        { deadlineMs, target: 'tax' },
      );
      return { homeCountry: s.homeCountry ?? null, vatId: s.vatId ?? null, viesEnabled: s.viesEnabled };
    },
    async calculate(request) {
      // The answer is checked by its schema: a mismatch is a bug between the services, an internal
      // error, not the caller's.
      return calls.json(
        'calculateTax',
        { organizationId: request.organizationId, testMode: request.mode === 'test' },
        { body: request },
      );
    },
    close() {
      client.close();
    },
  };
}
