import { call, makeClient } from '@paymesh/grpc';
import { tax } from '@paymesh/proto';
import { taxCalculation } from '@paymesh/contracts';
import type { InvoiceTaxPort } from '../app/invoice-deps';

/** {@link InvoiceTaxPort} over the tax service's `GetTaxSettings` and `CalculateTax`. */
export function grpcTaxPort(address: string, deadlineMs: number): InvoiceTaxPort & { close(): void } {
  const client = makeClient(tax.TaxServiceClient, address);
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
      const res = await call(
        client,
        client.calculateTax,
        {
          organizationId: request.organizationId,
          testMode: request.mode === 'test',
          id: '',
          bodyJson: JSON.stringify(request),
        },
        { deadlineMs, target: 'tax' },
      );
      // A mismatch is a bug between the services: an internal error, not the caller's.
      return taxCalculation.parse(JSON.parse(res.json));
    },
    close() {
      client.close();
    },
  };
}
