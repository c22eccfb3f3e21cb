import type { CollectionSpec } from '@paymesh/store';

export const SITE_INVOICING = 'site_invoicing_settings';
export const INVOICING_SETTINGS = 'invoicing_settings';
export const PORTAL_SETTINGS = 'portal_settings';

export const collections: CollectionSpec[] = [
  { name: SITE_INVOICING, indexes: [{ name: 'site_invoicing_org', fields: ['organizationId'] }] },
  { name: INVOICING_SETTINGS, indexes: [{ name: 'invoicing_settings_org_mode', fields: ['organizationId', 'mode'], unique: true }] },
  { name: PORTAL_SETTINGS, indexes: [{ name: 'portal_settings_org_mode', fields: ['organizationId', 'mode'], unique: true }] },
];
