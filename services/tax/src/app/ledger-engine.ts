import type { CalculateTaxRequest, TaxCalculation } from '@paymesh/contracts';
import { runCalculateTax } from './calculate-tax';
import type { TaxDeps } from './deps';
import { OssFlagCache } from './oss-flag';

/** Threshold flags reused by the ledger's own calculations, one cache per service instance. */
const flagCaches = new WeakMap<TaxDeps, OssFlagCache>();
const OSS_FLAG_TTL_MS = 5_000;

/**
 * The engine's answer for an engine request kept with a transaction whose event carried no tax
 * (the tax service could not answer when the buyer paid). The request pins the tax point, price
 * mode and VAT ID check, so the answer is the one the buyer would have got.
 */
export async function taxForRequest(deps: TaxDeps, request: CalculateTaxRequest): Promise<TaxCalculation> {
  let flags = flagCaches.get(deps);
  if (!flags) {
    flags = new OssFlagCache(deps.clock, OSS_FLAG_TTL_MS);
    flagCaches.set(deps, flags);
  }
  return runCalculateTax(deps, flags, request);
}
