/** What checkout needs from the tax service (organization tax settings, per data mode). */
export interface TaxSettingsPort {
  /**
   * Whether the organization's tax settings allow VIES-backed buyer VAT ID handling in the mode.
   * Throws when the tax service cannot answer.
   */
  viesAllowed(q: { organizationId: string; testMode: boolean }): Promise<boolean>;
}
