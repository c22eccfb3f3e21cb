import type { CollectionSpec } from '@paymesh/store';

export const TAX_SETTINGS = 'tax_settings';
/** Effective-dated VAT rates per organization and data mode (managed defaults and custom ones). */
export const TAX_RATES = 'tax_rates';
/** Rules choosing the rate type per organization and data mode. */
export const TAX_RULES = 'tax_rules';
/**
 * One marker per organization and data mode whose book was seeded with the managed defaults; its
 * unique insert decides which request seeds, and its `revision` moves with every rate or rule write.
 */
export const TAX_RATE_BOOKS = 'tax_rate_books';
/** Every VIES answer, kept as evidence; the newest within the TTL also serves as the cache. */
export const VIES_CHECKS = 'vies_checks';
/** Every event the ledger consumed (its inbox): what a rebuild derives the ledger from again. */
export const TAX_SOURCE_EVENTS = 'tax_source_events';
/** The immutable ledger entries. */
export const TAX_RECORDS = 'tax_records';
export const TAX_RECORD_REBUILDS = 'tax_record_rebuilds';
/** The ECB's euro reference rates, one document per publication day (not per organization). */
export const ECB_RATES = 'ecb_rates';
/** Counter key of `tax_source_events.seq` (the order a rebuild walks). */
export const SOURCE_EVENT_SEQUENCE = 'tax_source_events.seq';

export const collections: CollectionSpec[] = [
  {
    name: TAX_SETTINGS,
    audit: { resource: 'tax_settings' },
    // Read by every tax calculation (each transaction create).
    cached: true,
    indexes: [{ name: 'tax_settings_org_mode', fields: ['organizationId', 'mode'], unique: true }],
  },
  {
    name: TAX_RATES,
    audit: { resource: 'tax_rate' },
    indexes: [
      { name: 'tax_rates_org_mode', fields: ['organizationId', 'mode', 'country', 'code', 'validFrom'] },
      { name: 'tax_rates_org_mode_code_from', fields: ['organizationId', 'mode', 'code', 'validFrom'], unique: true },
      // Custom rates have no defaultKey (null): unique indexes leave them out.
      { name: 'tax_rates_org_mode_default', fields: ['organizationId', 'mode', 'defaultKey'], unique: true },
    ],
  },
  {
    name: TAX_RULES,
    audit: { resource: 'tax_rule' },
    indexes: [
      { name: 'tax_rules_org_mode', fields: ['organizationId', 'mode', 'specificity', 'priority'] },
      { name: 'tax_rules_org_mode_default', fields: ['organizationId', 'mode', 'defaultKey'], unique: true },
    ],
  },
  {
    name: TAX_RATE_BOOKS,
    indexes: [{ name: 'tax_rate_books_org_mode', fields: ['organizationId', 'mode'], unique: true }],
  },
  { name: ECB_RATES, indexes: [{ name: 'ecb_rates_date', fields: ['date'], unique: true }] },
  { name: VIES_CHECKS, indexes: [{ name: 'vies_checks_key_checked', fields: ['key', 'checkedAt'] }] },
  {
    name: TAX_SOURCE_EVENTS,
    indexes: [
      { name: 'tax_source_events_event', fields: ['eventId'], unique: true },
      { name: 'tax_source_events_org_seq', fields: ['organizationId', 'mode', 'seq'] },
      { name: 'tax_source_events_anchor', fields: ['organizationId', 'mode', 'anchor', 'role'] },
    ],
  },
  {
    name: TAX_RECORDS,
    indexes: [
      { name: 'tax_records_source_event_type', fields: ['sourceEventId', 'entryType'], unique: true },
      { name: 'tax_records_org_tax_point', fields: ['organizationId', 'mode', 'taxPointDate'] },
      { name: 'tax_records_org_source', fields: ['organizationId', 'mode', 'sourceKind', 'sourceId'] },
      { name: 'tax_records_org_transaction', fields: ['organizationId', 'mode', 'linkedTransactionId'] },
      { name: 'tax_records_org_invoice', fields: ['organizationId', 'mode', 'linkedInvoiceId'] },
    ],
  },
  {
    name: TAX_RECORD_REBUILDS,
    indexes: [
      // Set while a job is queued or running: at most one such job per organization and mode.
      { name: 'tax_record_rebuilds_active', fields: ['activeKey'], unique: true },
      { name: 'tax_record_rebuilds_org_created', fields: ['organizationId', 'mode', 'createdAt'] },
      { name: 'tax_record_rebuilds_status', fields: ['status'] },
    ],
  },
];
