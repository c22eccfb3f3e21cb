import { toWire } from '@paymesh/core';
import { jsonCaller } from '@paymesh/grpc';
import { tax } from '@paymesh/proto';
import { taxRpc } from '@paymesh/contracts';
import type { InvoiceTaxPort } from '../app/invoice-deps';
import { remote } from './remote';

/** {@link InvoiceTaxPort} over the tax service's `GetTaxSettings` and `CalculateTax`. */
export function grpcTaxPort(address: string, deadlineMs: number): InvoiceTaxPort & { close(): void } {
  const taxService = remote(tax.TaxServiceClient, address, deadlineMs, 'tax');
  const calls = jsonCaller(taxService.client, taxRpc, { deadlineMs, target: 'tax' });
  return {
    async settings(key) {
      const s = await taxService.call(taxService.client.getTaxSettings, toWire(key));
      return { homeCountry: s.homeCountry ?? null, vatId: s.vatId ?? null, viesEnabled: s.viesEnabled };
    },
    async calculate(request) {
      // The answer is checked by its schema: a mismatch is a bug between the services, an internal
      // error, not the caller's.
      return calls.json('calculateTax', toWire(request), { body: request });
    },
    close: taxService.close,
  };
}
