import type { CalculateTaxRequest, TaxCalculation } from '@paymesh/contracts';
import { runCalculateTax } from './calculate-tax';
import type { TaxDeps } from './deps';
import { ossFlagCacheOf } from './oss-flag';

/**
 * The engine's answer for an engine request kept with a transaction whose event carried no tax
 * (the tax service could not answer when the buyer paid). The request pins the tax point, price
 * mode and VAT ID check, so the answer is the one the buyer would have got.
 */
export async function taxForRequest(deps: TaxDeps, request: CalculateTaxRequest): Promise<TaxCalculation> {
  return runCalculateTax(deps, ossFlagCacheOf(deps), request);
}
