import { createHmac } from 'node:crypto';
import { digestEquals, sha256Hex, trackBackground, UnauthenticatedError } from '@paymesh/core';
import { generateAuthenticationOptions, generateRegistrationOptions } from '@simplewebauthn/server';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import {
  AUTH_CHALLENGES,
  USERS,
  WEBAUTHN_CREDENTIALS,
  type AuthChallengeDoc,
  type UserDoc,
  type WebAuthnCredentialDoc,
} from '../store/collections';
import type { AdminDeps } from './deps';

export type SignInStart =
  | { flow: 'registration'; challengeId: string; options: PublicKeyCredentialCreationOptionsJSON }
  | { flow: 'authentication'; challengeId: string; options: PublicKeyCredentialRequestOptionsJSON };

/**
 * `POST /auth`. With an enrollment token (issued when bootstrap or an Admin added the user) the
 * answer is registration options for a first credential; otherwise authentication options.
 * An unknown e-mail gets authentication options too, listing a stable decoy credential ID, so the
 * answer does not reveal who has an account; completing such a flow fails with 401.
 */
export async function startSignIn(
  deps: AdminDeps,
  input: { email: string; enrollmentToken?: string | undefined },
): Promise<SignInStart> {
  const email = input.email.trim().toLowerCase();
  const user = await deps.store.collection<UserDoc>(USERS).findOne({ email });
  const creds = user
    ? (await deps.store.collection<WebAuthnCredentialDoc>(WEBAUTHN_CREDENTIALS).find({ userId: user.id })).items
    : [];
  const now = deps.clock.now();
  const { rpId, rpName } = deps.auth;

  if (input.enrollmentToken !== undefined) {
    const enr = user?.enrollment;
    if (
      !user ||
      !enr ||
      new Date(enr.expiresAt) <= now ||
      !digestEquals(enr.tokenHash, sha256Hex(input.enrollmentToken))
    ) {
      throw new UnauthenticatedError('invalid or expired enrollment token');
    }
    const options = await generateRegistrationOptions({
      rpName,
      rpID: rpId,
      userName: user.email,
      userDisplayName: user.name,
      userID: Buffer.from(user.id, 'hex'),
      attestationType: 'none',
      excludeCredentials: creds.map((c) => ({ id: c.credentialId })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      supportedAlgorithmIDs: [-7, -257],
      timeout: deps.auth.challengeTtlSeconds * 1000,
    });
    const challengeId = await saveChallenge(deps, 'registration', options.challenge, user.id);
    return { flow: 'registration', challengeId, options };
  }

  const allow = creds.length ? creds.map((c) => ({ id: c.credentialId })) : [{ id: decoyCredentialId(deps, email) }];
  const options = await generateAuthenticationOptions({
    rpID: rpId,
    allowCredentials: allow,
    userVerification: 'required',
    timeout: deps.auth.challengeTtlSeconds * 1000,
  });
  const challengeId = await saveChallenge(
    deps,
    'authentication',
    options.challenge,
    creds.length && user ? user.id : null,
  );
  return { flow: 'authentication', challengeId, options };
}

function decoyCredentialId(deps: AdminDeps, email: string): string {
  return createHmac('sha256', deps.auth.jwtKey).update(`decoy-credential:${email}`).digest('base64url');
}

async function saveChallenge(
  deps: AdminDeps,
  purpose: AuthChallengeDoc['purpose'],
  challenge: string,
  userId: string | null,
): Promise<string> {
  const now = deps.clock.now();
  const doc = await deps.store.collection<AuthChallengeDoc>(AUTH_CHALLENGES).insert({
    purpose,
    challenge,
    userId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + deps.auth.challengeTtlSeconds * 1000).toISOString(),
  });
  // Expired challenges of abandoned attempts are swept opportunistically.
  void trackBackground(
    deps.store.collection<AuthChallengeDoc>(AUTH_CHALLENGES).deleteMany({ expiresAt: { $lt: now.toISOString() } }),
  ).catch((err: unknown) => deps.logger.debug({ err }, 'expired challenges not swept'));
  return doc.id;
}
