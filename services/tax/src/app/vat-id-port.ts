import type { VatIdCheck } from '@paymesh/contracts';

/** Checks buyer VAT IDs: format and checksum, and VIES when asked. Never throws for VIES outages. */
export interface VatIdChecker {
  /**
   * `format`: format and checksum only (`well_formed` / `malformed`); `vies`: also asks VIES (or
   * its cache) within the deadline; an outage gives `unverified` with the error recorded.
   * `requester`: the organization asking (its VAT ID is read from its tax settings), or the
   * requester VAT ID itself when the caller has the settings already (null: none).
   */
  check(
    vatId: string,
    mode: 'format' | 'vies',
    requester?: { organizationId: string; mode: 'live' | 'test' } | { vatId: string | null },
  ): Promise<VatIdCheck>;
}
