import type { VatIdCheck, VatIdValidationMode } from '@paymesh/contracts';

export interface BuyerTreatment {
  business: boolean;
  /** One sentence for buyers and auditors. */
  sentence: string;
}

/**
 * The buyer is a business ONLY when the mode is `vies` and VIES (live or a cached answer within
 * its TTL) confirmed the VAT ID. In `format` mode a well-formed VAT ID is recorded on the
 * calculation (and the invoice) but VAT is charged as for a consumer: a format check cannot show
 * the number is registered, and reverse charge needs that evidence.
 */
export function buyerTreatment(mode: VatIdValidationMode, check: VatIdCheck): BuyerTreatment {
  const id = check.vatId ?? '';
  const consumer = (sentence: string): BuyerTreatment => ({
    business: false,
    sentence: `${sentence}; VAT charged as for a consumer`,
  });
  if (check.status === 'not_given' || check.vatId === null) return consumer('no VAT ID given');
  if (mode === 'none') return consumer(`VAT ID ${id} recorded but not used (VAT ID validation is off)`);
  switch (check.status) {
    case 'valid': {
      if (mode !== 'vies')
        return consumer(`${mode} mode: VAT ID ${id} is recorded but only a VIES check can make the buyer a business`);
      const evidence = [
        check.source === 'cache' && check.checkedAt !== null ? `cached VIES answer of ${check.checkedAt}` : null,
        check.consultationNumber !== null ? `consultation ${check.consultationNumber}` : null,
      ].filter((x): x is string => x !== null);
      const more = evidence.length > 0 ? ` (${evidence.join(', ')})` : '';
      return {
        business: true,
        sentence: `VIES confirmed VAT ID ${id}${more}: business buyer, reverse charge on cross-border supplies`,
      };
    }
    case 'well_formed':
      return consumer(
        `format mode: VAT ID ${id} is well-formed and recorded, but only a VIES check can make the buyer a business`,
      );
    case 'malformed':
      return consumer(`VAT ID ${id} is malformed`);
    case 'invalid':
      return consumer(`VIES reports VAT ID ${id} as not valid`);
    case 'unverified':
      return consumer(`VAT ID ${id} not checked: VIES unavailable${check.error !== null ? ` (${check.error})` : ''}`);
    default:
      return consumer(`VAT ID ${id} not checked`);
  }
}
