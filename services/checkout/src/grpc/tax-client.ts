import { call, makeClient } from '@paymesh/grpc';
import { tax } from '@paymesh/proto';
import type { TaxSettingsPort } from '../app/tax-port';

/** {@link TaxSettingsPort} over the tax service's `GetTaxSettings`. */
export function grpcTaxSettingsPort(address: string, deadlineMs: number): TaxSettingsPort & { close(): void } {
  const client = makeClient(tax.TaxServiceClient, address);
  return {
    async viesAllowed(q) {
      const settings = await call(client, client.getTaxSettings, q, { deadlineMs, target: 'tax' });
      return settings.viesEnabled;
    },
    close() {
      client.close();
    },
  };
}
