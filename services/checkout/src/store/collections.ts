import type { CollectionSpec } from '@paymesh/store';

export const SITES = 'sites';
export const CUSTOM_DOMAINS = 'custom_domains';

export const collections: CollectionSpec[] = [
  {
    name: SITES,
    indexes: [{ name: 'sites_org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] }],
  },
  {
    name: CUSTOM_DOMAINS,
    indexes: [
      // One owner per host name across all organizations and modes: DNS has one answer per name.
      { name: 'custom_domains_hostname', fields: ['hostname'], unique: true },
      { name: 'custom_domains_org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] },
      { name: 'custom_domains_site', fields: ['siteId'] },
    ],
  },
];
