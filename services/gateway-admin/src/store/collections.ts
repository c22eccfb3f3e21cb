import type { CollectionSpec, StoredDoc } from '@paymesh/store';
import type { KeyMode } from '../domain/api-key';
import type { Role, Scope } from '../domain/scopes';

export const ORGANIZATIONS = 'organizations';
export const USERS = 'users';
export const MEMBERSHIPS = 'memberships';
export const API_KEYS = 'api_keys';

export type LicenseState = 'ACTIVE' | 'BLOCKED' | 'NOT_ACTIVATED';

export interface OrganizationDoc extends StoredDoc {
  name: string;
  licenseState: LicenseState;
  createdAt: string;
  updatedAt: string;
}

export interface UserDoc extends StoredDoc {
  email: string;
  name: string;
  createdAt: string;
}

export interface MembershipDoc extends StoredDoc {
  organizationId: string;
  userId: string;
  role: Role;
  createdAt: string;
}

export interface ApiKeyDoc extends StoredDoc {
  keyId: string;
  kind: 'organization' | 'system';
  organizationId: string | null;
  name: string;
  mode: KeyMode;
  role: Role;
  scopes: Scope[];
  secretHash: string;
  status: 'active' | 'revoked';
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  expiresAt: string | null;
}

export const collections: CollectionSpec[] = [
  { name: ORGANIZATIONS, indexes: [{ name: 'organizations_created', fields: ['createdAt'] }] },
  { name: USERS, indexes: [{ name: 'users_email', fields: ['email'], unique: true }] },
  {
    name: MEMBERSHIPS,
    indexes: [
      { name: 'memberships_org_user', fields: ['organizationId', 'userId'], unique: true },
      { name: 'memberships_user', fields: ['userId'] },
    ],
  },
  {
    name: API_KEYS,
    indexes: [
      { name: 'api_keys_key_id', fields: ['keyId'], unique: true },
      { name: 'api_keys_org', fields: ['organizationId', 'createdAt'] },
    ],
  },
];
