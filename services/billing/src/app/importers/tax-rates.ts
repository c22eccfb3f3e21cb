import { isDomainError, ValidationError } from '@paymesh/core';
import { taxRateCreate, type TaxRateCreate } from '@paymesh/contracts';
import { IMPORT_LAYOUTS } from '../../domain/data-io';
import type { TaxRateIdentity } from '../data-io-port';
import { oneRowCheck, rowErrorOf, type Importer } from './importer';

/** Tax rates: created through the tax service; a rate is the same when code and first day are (as the tax service sees it). */
const rateKey = (r: TaxRateIdentity) => `${r.code}|${r.validFrom}`;

export const taxRateImporter: Importer<TaxRateCreate> = {
  check: oneRowCheck(IMPORT_LAYOUTS.tax_rates.columns, taxRateCreate, (input) => input),
  async write(deps, key, ctx, records) {
    const existing = ctx.taxRates ?? new Set((await deps.dataIo.taxRates(key)).map(rateKey));
    ctx.taxRates = existing;
    let created = 0;
    for (const r of records) {
      const k = rateKey(r.input);
      if (existing.has(k)) continue;
      try {
        await deps.dataIo.createTaxRate(key, r.input);
      } catch (err) {
        if (
          isDomainError(err) &&
          (err.kind === 'validation' || err.kind === 'conflict' || err.kind === 'unprocessable')
        ) {
          const e = rowErrorOf(
            err.kind === 'conflict' ? new ValidationError(err.message, { field: err.field }) : err,
            r.row,
          );
          throw new ValidationError(
            `row ${e.row}${e.field ? ` (${e.field})` : ''}: the tax service refused the rate: ${e.error}; the rows before it were imported, upload the corrected file again`,
            {
              field: e.field ?? undefined,
            },
          );
        }
        throw err;
      }
      existing.add(k);
      created++;
    }
    return [created, records.length - created];
  },
};
