import type { CalculateTaxRequest, TaxCalculation } from '@paymesh/contracts';

/** What checkout needs from the tax service. Both calls throw when the tax service cannot answer. */
export interface TaxPort {
  /** Whether the organization's tax settings allow VIES-backed buyer VAT ID handling in the mode. */
  viesAllowed(q: { organizationId: string; testMode: boolean }): Promise<boolean>;
  /** The tax engine's answer (CalculateTax). */
  calculate(request: CalculateTaxRequest): Promise<TaxCalculation>;
}
