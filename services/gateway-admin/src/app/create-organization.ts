import { ConflictError, newObjectId } from '@paymesh/core';
import { eventId } from '@paymesh/bus';
import { ORGANIZATION_SCOPES, type Role } from '../domain/scopes';
import {
  MEMBERSHIPS,
  ORGANIZATIONS,
  USERS,
  type LicenseState,
  type MembershipDoc,
  type OrganizationDoc,
  type UserDoc,
} from '../store/collections';
import { insertApiKey, newApiKey, type CreatedApiKey } from './api-keys';
import type { AdminDeps } from './deps';
import { newEnrollment } from './enrollment';
import type { KeyMode } from '../domain/api-key';

import { Subjects, type OrganizationCreated } from '@paymesh/contracts';
import { withDuplicateAs } from './duplicate-key';

export const IdentityEvents = { organizationCreated: Subjects.organizationCreated } as const;

export interface CreateOrganizationInput {
  name: string;
  licenseState: LicenseState;
  admin: { email: string; name: string };
  /** Also issue an organization API key with every organization scope. */
  apiKey?: { name: string; mode: KeyMode };
}

export interface CreatedOrganization {
  organization: OrganizationDoc;
  admin: UserDoc;
  /** One-time token for the admin's first WebAuthn registration; only when the user is new. */
  enrollmentToken: string | undefined;
  apiKey: CreatedApiKey | undefined;
}

/**
 * Creates an organization, makes the given user (created if new) its Admin, optionally issues a
 * full-scope organization key, and announces `identity.organization.created`, all in one
 * transaction.
 */
export async function createOrganization(
  deps: AdminDeps,
  input: CreateOrganizationInput,
): Promise<CreatedOrganization> {
  const now = deps.clock.now().toISOString();
  const orgId = newObjectId();
  const role: Role = 'Admin';
  const email = input.admin.email.trim().toLowerCase();
  const result = await withDuplicateAs(
    deps.outbox.commit(async (tx) => {
      const organization = await tx.collection<OrganizationDoc>(ORGANIZATIONS).insert({
        id: orgId,
        name: input.name.trim(),
        licenseState: input.licenseState,
        createdAt: now,
        updatedAt: now,
      });
      const users = tx.collection<UserDoc>(USERS);
      let admin = await users.findOne({ email });
      let enrollmentToken: string | undefined;
      if (!admin) {
        const enr = newEnrollment(deps);
        enrollmentToken = enr.token;
        admin = await users.insert({
          email,
          name: input.admin.name.trim() || email,
          createdAt: now,
          enrollment: enr.enrollment,
        });
      }
      try {
        await tx
          .collection<MembershipDoc>(MEMBERSHIPS)
          .insert({ organizationId: orgId, userId: admin.id, role, createdAt: now });
      } catch (err) {
        if (err instanceof ConflictError) throw new ConflictError('user is already a member of this organization');
        throw err;
      }
      const apiKey = input.apiKey
        ? await insertApiKey(
            tx,
            newApiKey(
              {
                kind: 'organization',
                organizationId: orgId,
                name: input.apiKey.name,
                mode: input.apiKey.mode,
                role: 'Admin',
                scopes: [...ORGANIZATION_SCOPES],
                expiresAt: null,
              },
              now,
            ),
          )
        : undefined;
      tx.emit(
        IdentityEvents.organizationCreated,
        {
          organizationId: orgId,
          name: organization.name,
          licenseState: organization.licenseState,
        } satisfies OrganizationCreated,
        { id: eventId(IdentityEvents.organizationCreated, orgId) },
      );
      return { organization, admin, enrollmentToken, apiKey };
    }),
    'user is already a member of this organization',
  );
  deps.logger.info({ organizationId: orgId }, 'organization created');
  return result;
}
