import type { CollectionSpec } from '@paymesh/store';

export const TAX_SETTINGS = 'tax_settings';

export const collections: CollectionSpec[] = [
  { name: TAX_SETTINGS, indexes: [{ name: 'tax_settings_org_mode', fields: ['organizationId', 'mode'], unique: true }] },
];
