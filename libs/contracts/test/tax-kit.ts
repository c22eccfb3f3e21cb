import type { VatIdCheck } from '../src/tax';

/**
 * Test values of the tax contracts that several services' tests build alike (a test kit: imported
 * by tests only, never part of a build).
 */

/** The VAT-number check of a buyer who gave none (what the engine records for a consumer). */
export function vatIdNotGiven(over: Partial<VatIdCheck> = {}): VatIdCheck {
  return {
    vatId: null,
    status: 'not_given',
    source: null,
    checkedAt: null,
    consultationNumber: null,
    companyName: null,
    address: null,
    error: null,
    ...over,
  };
}
