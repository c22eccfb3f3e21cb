import type { CollectionSpec, StoredDoc } from '@paymesh/store';
import { IDEMPOTENCY_COLLECTION } from '@paymesh/http';
import type { KeyMode } from '../domain/api-key';
import type { Role, Scope } from '../domain/scopes';

export const ORGANIZATIONS = 'organizations';
export const USERS = 'users';
export const MEMBERSHIPS = 'memberships';
export const API_KEYS = 'api_keys';
export const WEBAUTHN_CREDENTIALS = 'webauthn_credentials';
export const AUTH_CHALLENGES = 'auth_challenges';
export const SESSIONS = 'sessions';
/** The audit trail of every service (append-only: no route updates or deletes it). */
export const AUDIT_EVENTS = 'audit_events';

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
  /**
   * One-time enrollment token (hash) that lets the user register a first WebAuthn credential;
   * issued when bootstrap or an Admin adds the user, cleared once a credential is registered.
   */
  enrollment?: { tokenHash: string; expiresAt: string } | null;
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
  /** 'config': the root system key from SYSTEM_API_KEY; only configuration changes it. */
  managedBy?: 'config';
}

export interface WebAuthnCredentialDoc extends StoredDoc {
  userId: string;
  /** Credential ID, base64url. */
  credentialId: string;
  /** COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  createdAt: string;
  lastUsedAt: string | null;
}

/** A WebAuthn challenge handed out by POST /auth; consumed (deleted) by its first completion attempt. */
export interface AuthChallengeDoc extends StoredDoc {
  purpose: 'registration' | 'authentication';
  challenge: string;
  /** null for an e-mail that matches no user: the attempt fails on completion, like a wrong key would. */
  userId: string | null;
  expiresAt: string;
  createdAt: string;
}

/** A dashboard session: the refresh token (hash) that renews short-lived access JWTs. */
export interface SessionDoc extends StoredDoc {
  userId: string;
  refreshHash: string;
  /** Hash of the refresh token swapped last; presenting it again is a replay. */
  previousRefreshHash?: string | null;
  createdAt: string;
  refreshedAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

/** One recorded change of one resource (a row of GET /audit-events). */
export interface AuditEventDoc {
  id: string;
  version: number;
  /** The bus event that carried it, and the record's place in it. */
  eventId: string;
  index: number;
  at: string;
  /** `at` then `id`: the sort and cursor key (bytewise order is time order). */
  key: string;
  organizationId: string | null;
  service: string;
  requestId: string;
  actor: { type: string; id: string; name?: string };
  /** `<type>:<id>`, the actor filter. */
  actorKey: string;
  initiator?: { type: string; id: string; name?: string };
  operation: string;
  action: 'create' | 'update' | 'delete';
  resourceType: string;
  resourceId: string;
  beforeKnown: boolean;
  changes: Array<{ path: string; before?: unknown; after?: unknown }>;
}

export const collections: CollectionSpec[] = [
  // Organizations and API keys are read by every Admin API request.
  {
    name: ORGANIZATIONS,
    audit: { resource: 'organization', organizationField: 'id' },
    cached: true,
    indexes: [{ name: 'organizations_created', fields: ['createdAt'] }],
  },
  { name: USERS, indexes: [{ name: 'users_email', fields: ['email'], unique: true }] },
  {
    name: MEMBERSHIPS,
    audit: { resource: 'membership' },
    indexes: [
      { name: 'memberships_org_user', fields: ['organizationId', 'userId'], unique: true },
      { name: 'memberships_user', fields: ['userId'] },
    ],
  },
  {
    name: API_KEYS,
    audit: { resource: 'api_key', ignoreFields: ['lastUsedAt'] },
    cached: true,
    indexes: [
      { name: 'api_keys_key_id', fields: ['keyId'], unique: true },
      { name: 'api_keys_org', fields: ['organizationId', 'createdAt'] },
      { name: 'api_keys_kind', fields: ['kind', 'createdAt'] },
    ],
  },
  {
    name: WEBAUTHN_CREDENTIALS,
    indexes: [
      { name: 'webauthn_credentials_id', fields: ['credentialId'], unique: true },
      { name: 'webauthn_credentials_user', fields: ['userId'] },
    ],
  },
  { name: AUTH_CHALLENGES, indexes: [{ name: 'auth_challenges_expiry', fields: ['expiresAt'] }] },
  {
    name: AUDIT_EVENTS,
    indexes: [
      { name: 'audit_events_org_key', fields: ['organizationId', 'key'] },
      { name: 'audit_events_org_resource', fields: ['organizationId', 'resourceType', 'resourceId', 'key'] },
      { name: 'audit_events_org_actor', fields: ['organizationId', 'actorKey', 'key'] },
      { name: 'audit_events_org_operation', fields: ['organizationId', 'operation', 'key'] },
    ],
  },
  { name: SESSIONS, indexes: [{ name: 'sessions_user', fields: ['userId'] }] },
  // Idempotency-Key records (claims and kept answers; libs/http/src/idempotency).
  IDEMPOTENCY_COLLECTION,
];
