/** EU-wide threshold for intra-EU B2C distance sales: EUR 10 000 (in cents) per calendar year. */
export const OSS_THRESHOLD_EUR_CENTS = 1_000_000;

export interface OssThresholdStatus {
  year: number;
  currency: 'EUR';
  threshold: number;
  currentTotal: number;
  exceeded: boolean;
}

/**
 * Status against the threshold. Above it, sales are taxed in the buyer's member state from the
 * sale that crosses it on; at exactly the threshold the seller is still below ("exceeds").
 */
export function ossThresholdStatus(year: number, currentTotalEurCents: number): OssThresholdStatus {
  return {
    year,
    currency: 'EUR',
    threshold: OSS_THRESHOLD_EUR_CENTS,
    currentTotal: currentTotalEurCents,
    exceeded: currentTotalEurCents > OSS_THRESHOLD_EUR_CENTS,
  };
}
