import { ConflictError, UnauthenticatedError } from '@paymesh/core';
import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import {
  AUTH_CHALLENGES,
  MEMBERSHIPS,
  ORGANIZATIONS,
  USERS,
  WEBAUTHN_CREDENTIALS,
  type AuthChallengeDoc,
  type MembershipDoc,
  type OrganizationDoc,
  type UserDoc,
  type WebAuthnCredentialDoc,
} from '../store/collections';
import type { AdminDeps } from './deps';
import { openSession, type SessionTokens } from './sessions';
import { withDuplicateAs } from './duplicate-key';

export interface SignedIn {
  user: UserDoc;
  organizations: { id: string; name: string; role: MembershipDoc['role'] }[];
  tokens: SessionTokens;
}

const TRANSPORTS: ReadonlySet<string> = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);
const isTransport = (t: string): t is AuthenticatorTransportFuture => TRANSPORTS.has(t);

/**
 * `POST /auth/authenticate-complete`: consumes the challenge (single use, whether or not the
 * response verifies), verifies the attestation (registration) or assertion (authentication) with
 * user verification required, and opens a session.
 */
export async function completeSignIn(
  deps: AdminDeps,
  input: { challengeId: string; response: RegistrationResponseJSON | AuthenticationResponseJSON },
): Promise<SignedIn> {
  const challenges = deps.store.collection<AuthChallengeDoc>(AUTH_CHALLENGES);
  const challenge = await challenges.get(input.challengeId);
  // Only the request that deletes the challenge may use it: concurrent replays lose here.
  if (!challenge || !(await challenges.delete(challenge.id)) || new Date(challenge.expiresAt) <= deps.clock.now()) {
    throw new UnauthenticatedError('sign-in challenge expired or already used; start again with POST /auth');
  }
  if (!challenge.userId) throw new UnauthenticatedError('sign-in failed');
  const user = await deps.store.collection<UserDoc>(USERS).get(challenge.userId);
  if (!user) throw new UnauthenticatedError('sign-in failed');

  if (challenge.purpose === 'registration') await register(deps, user, challenge, input.response);
  else await assert(deps, user, challenge, input.response);

  const memberships = (
    await deps.store.collection<MembershipDoc>(MEMBERSHIPS).find({ userId: user.id }, { sort: { createdAt: 1 } })
  ).items;
  const organizations: SignedIn['organizations'] = [];
  for (const m of memberships) {
    const org = await deps.store.collection<OrganizationDoc>(ORGANIZATIONS).get(m.organizationId);
    if (org) organizations.push({ id: org.id, name: org.name, role: m.role });
  }
  return { user, organizations, tokens: await openSession(deps, user.id) };
}

/** What every WebAuthn check expects: this sign-in's challenge, the dashboard's origins and relying party, user verification. */
function expected(deps: AdminDeps, challenge: AuthChallengeDoc) {
  return {
    expectedChallenge: challenge.challenge,
    expectedOrigin: deps.auth.origins,
    expectedRPID: deps.auth.rpId,
    requireUserVerification: true,
  };
}

const isVerified = <R extends { verified: boolean }>(r: R): r is R & { verified: true } => r.verified;

/**
 * Runs a WebAuthn check of the user's response: one the library refuses is logged (`webauthn <what>
 * rejected`) and, like one it does not verify, answers 401 with `refusal`.
 */
async function verifiedBy<R extends { verified: boolean }>(
  deps: AdminDeps,
  user: UserDoc,
  what: 'registration' | 'assertion',
  refusal: string,
  check: () => Promise<R>,
): Promise<R & { verified: true }> {
  let result: R;
  try {
    result = await check();
  } catch (err) {
    deps.logger.info(
      { userId: user.id, err: err instanceof Error ? err.message : String(err) },
      `webauthn ${what} rejected`,
    );
    throw new UnauthenticatedError(refusal);
  }
  if (!isVerified(result)) throw new UnauthenticatedError(refusal);
  return result;
}

async function register(
  deps: AdminDeps,
  user: UserDoc,
  challenge: AuthChallengeDoc,
  response: RegistrationResponseJSON | AuthenticationResponseJSON,
): Promise<void> {
  if (!('attestationObject' in response.response))
    throw new UnauthenticatedError('a registration (attestation) response is expected');
  const attestation: RegistrationResponseJSON = { ...response, response: response.response };
  const result = await verifiedBy(deps, user, 'registration', 'registration could not be verified', () =>
    verifyRegistrationResponse({ response: attestation, ...expected(deps, challenge) }),
  );
  const cred = result.registrationInfo.credential;
  const now = deps.clock.now();
  await withDuplicateAs(
    deps.store.transaction(async (tx) => {
      const users = tx.collection<UserDoc>(USERS);
      const current = await users.get(user.id);
      const enr = current?.enrollment;
      if (!current || !enr || new Date(enr.expiresAt) <= now)
        throw new UnauthenticatedError('enrollment token expired or already used');
      try {
        await tx.collection<WebAuthnCredentialDoc>(WEBAUTHN_CREDENTIALS).insert({
          userId: user.id,
          credentialId: cred.id,
          publicKey: Buffer.from(cred.publicKey).toString('base64url'),
          counter: cred.counter,
          transports: cred.transports ?? [],
          createdAt: now.toISOString(),
          lastUsedAt: null,
        });
      } catch (err) {
        if (err instanceof ConflictError) throw new ConflictError('this authenticator is already registered');
        throw err;
      }
      await users.replace({ ...current, enrollment: null });
    }),
    'this authenticator is already registered',
  );
  deps.logger.info({ userId: user.id }, 'webauthn credential registered');
}

async function assert(
  deps: AdminDeps,
  user: UserDoc,
  challenge: AuthChallengeDoc,
  response: RegistrationResponseJSON | AuthenticationResponseJSON,
): Promise<void> {
  if (!('signature' in response.response))
    throw new UnauthenticatedError('an authentication (assertion) response is expected');
  const assertion: AuthenticationResponseJSON = { ...response, response: response.response };
  const creds = deps.store.collection<WebAuthnCredentialDoc>(WEBAUTHN_CREDENTIALS);
  const stored = await creds.findOne({ credentialId: assertion.id, userId: user.id });
  if (!stored) throw new UnauthenticatedError('sign-in failed');
  const result = await verifiedBy(deps, user, 'assertion', 'sign-in failed', () =>
    verifyAuthenticationResponse({
      response: assertion,
      ...expected(deps, challenge),
      credential: {
        id: stored.credentialId,
        publicKey: Buffer.from(stored.publicKey, 'base64url'),
        counter: stored.counter,
        transports: stored.transports.filter(isTransport),
      },
    }),
  );
  const now = deps.clock.now().toISOString();
  await creds.update(stored.id, (cur) => {
    return { ...cur, counter: result.authenticationInfo.newCounter, lastUsedAt: now };
  });
}
