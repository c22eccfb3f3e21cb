import { ConflictError, NotFoundError, ErrorCode } from '@paymesh/core';
import type { Role } from '../domain/scopes';
import { MEMBERSHIPS, USERS, type MembershipDoc, type UserDoc } from '../store/collections';
import { withDuplicateAs } from './duplicate-key';
import type { AdminDeps } from './deps';
import { newEnrollment } from './enrollment';

/** A member as the API shows it. */
export interface MemberView {
  userId: string;
  membershipId: string;
  email: string;
  name: string;
  role: Role;
  createdAt: string;
}

function view(m: MembershipDoc, u: UserDoc | null): MemberView {
  return {
    userId: m.userId,
    membershipId: m.id,
    email: u?.email ?? '',
    name: u?.name ?? '',
    role: m.role,
    createdAt: m.createdAt,
  };
}

/** Members of an organization, oldest first. */
export async function listMembers(deps: AdminDeps, organizationId: string, page: number, limit: number) {
  const res = await deps.store
    .collection<MembershipDoc>(MEMBERSHIPS)
    .find({ organizationId }, { sort: { createdAt: 1 }, page, limit, total: true });
  const users = deps.store.collection<UserDoc>(USERS);
  const items = await Promise.all(res.items.map(async (m) => view(m, await users.get(m.userId))));
  return { items, total: res.total, page: res.page, limit: res.limit };
}

/**
 * Adds a user (created when the e-mail is new) to an organization. A new user gets a one-time
 * enrollment token for registering a first WebAuthn credential; it is returned this once.
 * Adding someone who is already a member is a 409.
 */
export async function addMember(
  deps: AdminDeps,
  organizationId: string,
  input: { email: string; name: string; role: Role },
): Promise<{ member: MemberView; enrollmentToken: string | undefined }> {
  const email = input.email.trim().toLowerCase();
  const now = deps.clock.now().toISOString();
  const result = await withDuplicateAs(
    deps.store.transaction(async (tx) => {
      const users = tx.collection<UserDoc>(USERS);
      let user = await users.findOne({ email });
      let enrollmentToken: string | undefined;
      if (user) {
        // NOTE: e-mail ownership is not proven yet (enrollment tokens are handed to the inviter), so an
        // account enrolled through another organization may not belong to the address's owner: it is
        // not attached here. A member of this organization already is a 409.
        const mine = await tx.collection<MembershipDoc>(MEMBERSHIPS).findOne({ organizationId, userId: user.id });
        if (mine) throw new ConflictError(`${email} is already a member of this organization`);
        throw new ConflictError(
          `${email} already has an account in another organization; linking it needs the account holder's confirmation`,
          {
            code: ErrorCode.USER_EXISTS_ELSEWHERE,
          },
        );
      }
      if (!user) {
        const enr = newEnrollment(deps);
        enrollmentToken = enr.token;
        user = await users.insert({
          email,
          name: input.name.trim() || email,
          createdAt: now,
          enrollment: enr.enrollment,
        });
      }
      let membership: MembershipDoc;
      try {
        membership = await tx
          .collection<MembershipDoc>(MEMBERSHIPS)
          .insert({ organizationId, userId: user.id, role: input.role, createdAt: now });
      } catch (err) {
        if (err instanceof ConflictError) throw new ConflictError(`${email} is already a member of this organization`);
        throw err;
      }
      return { member: view(membership, user), enrollmentToken };
    }),
    `${email} is already a member of this organization`,
  );
  deps.logger.info({ organizationId, userId: result.member.userId, role: input.role }, 'member added');
  return result;
}

async function membershipOf(deps: AdminDeps, organizationId: string, userId: string): Promise<MembershipDoc> {
  const m = await deps.store.collection<MembershipDoc>(MEMBERSHIPS).findOne({ organizationId, userId });
  if (!m) throw new NotFoundError('member not found');
  return m;
}

async function assertAnotherAdmin(deps: AdminDeps, organizationId: string, userId: string): Promise<void> {
  const admins = await deps.store
    .collection<MembershipDoc>(MEMBERSHIPS)
    .count({ organizationId, role: 'Admin', userId: { $ne: userId } });
  if (admins === 0) throw new ConflictError('an organization must keep at least one Admin');
}

/** Changes a member's role; the last Admin cannot be demoted. */
export async function changeMemberRole(
  deps: AdminDeps,
  organizationId: string,
  userId: string,
  role: Role,
): Promise<MemberView> {
  const m = await membershipOf(deps, organizationId, userId);
  if (m.role === 'Admin' && role !== 'Admin') await assertAnotherAdmin(deps, organizationId, userId);
  const updated = await deps.store.collection<MembershipDoc>(MEMBERSHIPS).update(m.id, (cur) => {
    return { ...cur, role };
  });
  return view(updated, await deps.store.collection<UserDoc>(USERS).get(userId));
}

/** Removes a member (the user record stays; other memberships are untouched); never the last Admin. */
export async function removeMember(deps: AdminDeps, organizationId: string, userId: string): Promise<void> {
  const m = await membershipOf(deps, organizationId, userId);
  if (m.role === 'Admin') await assertAnotherAdmin(deps, organizationId, userId);
  await deps.store.collection<MembershipDoc>(MEMBERSHIPS).delete(m.id);
  deps.logger.info({ organizationId, userId }, 'member removed');
}
