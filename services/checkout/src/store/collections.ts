import type { CollectionSpec } from '@paymesh/store';

export const SITES = 'sites';
export const CUSTOM_DOMAINS = 'custom_domains';
export const CHECKOUTS = 'checkouts';
export const TRANSACTIONS = 'transactions';
export const HANDOFFS = 'handoffs';
export const ORG_LICENSES = 'org_licenses';
export const CUSTOMER_HOLDS = 'customer_holds';
export const BUYER_BLOCKS = 'buyer_blocks';
export const RISK_SETTINGS = 'risk_settings';
export const DASHBOARD_BUCKETS = 'dashboard_buckets';
export const DASHBOARD_STATE = 'dashboard_state';

export const collections: CollectionSpec[] = [
  {
    name: SITES,
    audit: { resource: 'site' },
    // Read by every checkout, buyer read, transaction and IPN; written by site settings.
    cached: true,
    indexes: [
      { name: 'sites_org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] },
      // Buyer portal sign-in by the page's host (app/resolve-buyer-host.ts).
      { name: 'sites_frontend_domains', fields: ['frontendDomains'], array: true },
    ],
  },
  {
    name: CUSTOM_DOMAINS,
    audit: { resource: 'custom_domain' },
    // Read by every checkout create (paymentUrl's host).
    cached: true,
    indexes: [
      // One owner per host name across all organizations and modes: DNS has one answer per name.
      { name: 'custom_domains_hostname', fields: ['hostname'], unique: true },
      { name: 'custom_domains_org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] },
      { name: 'custom_domains_site', fields: ['siteId'] },
    ],
  },
  {
    name: CHECKOUTS,
    audit: { resource: 'checkout' },
    indexes: [
      { name: 'checkouts_session_public_id', fields: ['sessionPublicId'], unique: true },
      { name: 'checkouts_short_code', fields: ['shortCode'], unique: true },
      { name: 'checkouts_org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] },
      { name: 'checkouts_status_expires_at', fields: ['status', 'expiresAt'] },
    ],
  },
  {
    name: TRANSACTIONS,
    audit: { resource: 'transaction', ignoreFields: ['aggregated'] },
    // Sorted by value alone (ISO timestamps bytewise, statuses numerically), as the list indexes are built.
    fieldTypes: { createdAt: 'string', status: 'number' },
    indexes: [
      // The transactions list (app/get-transaction.ts): newest first, ties by id, walked page by
      // page; a date range narrows the walk. With a status: the second one. Only transactions not
      // deleted, as the list asks, so its bounded total is counted from the index alone.
      {
        name: 'transactions_org_mode_created_id',
        fields: ['organizationId', 'mode', 'createdAt', 'id'],
        descending: ['createdAt'],
        where: { deletedAt: { $exists: false } },
      },
      {
        name: 'transactions_org_mode_status_created_id',
        fields: ['organizationId', 'mode', 'status', 'createdAt', 'id'],
        descending: ['createdAt'],
        where: { deletedAt: { $exists: false } },
      },
      // The dashboard's search: a merchant's reference or a buyer's e-mail address.
      { name: 'transactions_org_mode_reference', fields: ['organizationId', 'mode', 'externalReference'] },
      { name: 'transactions_org_mode_email', fields: ['organizationId', 'mode', 'email'] },
      // At most one pending transaction per checkout (null for all others).
      { name: 'transactions_open_checkout', fields: ['openCheckoutId'], unique: true },
      { name: 'transactions_checkout', fields: ['checkoutId'] },
      { name: 'transactions_status_expire_at', fields: ['status', 'expireAt'] },
      // Dashboard: recent transactions by creation quarter hour; the aggregates backfill walks ids.
      { name: 'transactions_org_mode_quarter', fields: ['organizationId', 'mode', 'createdQuarter'] },
      { name: 'transactions_id', fields: ['id'] },
    ],
    // Built over createdAt's text in the default collation, which the list's bytewise order cannot use.
    dropIndexes: ['transactions_org_mode_created'],
  },
  {
    name: HANDOFFS,
    indexes: [
      { name: 'handoffs_token_hash', fields: ['tokenHash'], unique: true },
      { name: 'handoffs_expires', fields: ['expiresAt'] },
    ],
  },
  // Read by every buyer read and transaction create.
  { name: ORG_LICENSES, audit: { resource: 'organization_license' }, cached: true },
  {
    name: CUSTOMER_HOLDS,
    audit: { resource: 'customer_hold' },
    indexes: [
      // One hold per decided chargeback.
      { name: 'customer_holds_source', fields: ['sourceKey'], unique: true },
      { name: 'customer_holds_org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] },
      { name: 'customer_holds_org_mode_email', fields: ['organizationId', 'mode', 'buyerEmail'] },
    ],
  },
  {
    name: BUYER_BLOCKS,
    audit: { resource: 'buyer_block' },
    // Whether an organization has any block is read by every checkout and payment (app/buyer-risk.ts).
    cached: true,
    indexes: [
      { name: 'buyer_blocks_org_mode_key', fields: ['organizationId', 'mode', 'key'] },
      { name: 'buyer_blocks_ref', fields: ['ref'] },
    ],
  },
  // Dashboard aggregates (domain/dashboard.ts): read by id only (deterministic bucket ids).
  { name: DASHBOARD_BUCKETS },
  { name: DASHBOARD_STATE },
  {
    name: RISK_SETTINGS,
    audit: { resource: 'risk_settings' },
    indexes: [{ name: 'risk_settings_org_mode', fields: ['organizationId', 'mode'], unique: true }],
  },
];
