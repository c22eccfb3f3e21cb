import { call, jsonCaller, makeClient } from '@paymesh/grpc';
import { tax } from '@paymesh/proto';
import { taxRpc } from '@paymesh/contracts';
import type { TaxPort } from '../app/tax-port';

/** {@link TaxPort} over the tax service's `GetTaxSettings` and `CalculateTax`, each with its own deadline. */
export function grpcTaxPort(
  address: string,
  deadlines: { settingsMs: number; calculateMs: number },
): TaxPort & { close(): void } {
  const client = makeClient(tax.TaxServiceClient, address);
  const calls = jsonCaller(client, taxRpc, { deadlineMs: deadlines.calculateMs, target: 'tax' });
  return {
    async viesAllowed(q) {
      const settings = await call(client, client.getTaxSettings, q, {
        deadlineMs: deadlines.settingsMs,
        target: 'tax',
      });
      return settings.viesEnabled;
    },
    async calculate(request) {
      // The answer is checked by its schema: a mismatch is a bug between the services, hence an
      // internal error (not the buyer's fault).
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
