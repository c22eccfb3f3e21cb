import { call, makeClient } from '@paymesh/grpc';
import { tax } from '@paymesh/proto';
import { taxCalculation } from '@paymesh/contracts';
import type { TaxPort } from '../app/tax-port';

/** {@link TaxPort} over the tax service's `GetTaxSettings` and `CalculateTax`, each with its own deadline. */
export function grpcTaxPort(
  address: string,
  deadlines: { settingsMs: number; calculateMs: number },
): TaxPort & { close(): void } {
  const client = makeClient(tax.TaxServiceClient, address);
  return {
    async viesAllowed(q) {
      const settings = await call(client, client.getTaxSettings, q, {
        deadlineMs: deadlines.settingsMs,
        target: 'tax',
      });
      return settings.viesEnabled;
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
        { deadlineMs: deadlines.calculateMs, target: 'tax' },
      );
      // A mismatch is a bug between the services, hence an internal error (not the buyer's fault).
      return taxCalculation.parse(JSON.parse(res.json));
    },
    close() {
      client.close();
    },
  };
}
