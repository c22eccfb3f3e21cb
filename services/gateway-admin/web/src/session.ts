import { useSyncExternalStore } from 'react';
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { ApiError, authApi, must, onUnauthorized, setAccessToken, type Role } from './api';

export interface Organization {
  id: string;
  name: string;
  role: Role;
}

export interface User {
  id: string;
  email: string;
  name: string;
}

/** Why the sign-in screen shows: nothing, a session the server ended (reuse, revocation, expiry), or a sign-out. */
export type SignedOutNotice = 'ended' | 'loggedOut' | null;

export type Session =
  | { status: 'starting' }
  | { status: 'signedOut'; notice: SignedOutNotice }
  | { status: 'signedIn'; user: User; organizations: Organization[]; organization: Organization; mode: DataMode };

/** Live data, or the organization's test-mode data (what its sk_test_ keys see). */
export type DataMode = 'live' | 'test';

/** Marks that this tab had a session (no secret): a failed renewal at start then says the session ended. */
const HAD_SESSION = 'paymesh.hadSession';
const ORG_COOKIE = 'selectedOrganization';
/** Which data the API acts on for this browser (it grants nothing: role and scopes stay the member's). */
const MODE_COOKIE = 'dataMode';
/** Renew when this share of the access token's lifetime has passed. */
const RENEW_AT = 0.8;

let state: Session = { status: 'starting' };
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setTimeout> | undefined;
let renewing: Promise<boolean> | null = null;
/** The session's own copy of the access token, for the sign-in routes (login check, logout). */
let lastToken: string | null = null;

function set(next: Session): void {
  state = next;
  for (const l of listeners) l();
}

export function useSession(): Session {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
  );
}

function readCookie(name: string): string | undefined {
  return document.cookie
    .split('; ')
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1);
}

function writeCookie(name: string, value: string): void {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${name}=${value}; Path=/; SameSite=Strict; Max-Age=31536000${secure}`;
}

const selectedCookie = () => readCookie(ORG_COOKIE);
const selectCookie = (id: string) => writeCookie(ORG_COOKIE, id);
const modeCookie = (): DataMode => (readCookie(MODE_COOKIE) === 'test' ? 'test' : 'live');

function tokens(accessToken: string, expiresIn: number): void {
  lastToken = accessToken;
  setAccessToken(accessToken);
  clearTimeout(timer);
  timer = setTimeout(() => void renew(), Math.max(5, expiresIn * RENEW_AT) * 1000);
}

function ended(notice: SignedOutNotice): void {
  clearTimeout(timer);
  lastToken = null;
  setAccessToken(null);
  if (notice !== 'ended') sessionStorage.removeItem(HAD_SESSION);
  set({ status: 'signedOut', notice });
}

function signedIn(user: User, organizations: Organization[]): void {
  sessionStorage.setItem(HAD_SESSION, '1');
  const organization = organizations.find((o) => o.id === selectedCookie()) ?? organizations[0];
  if (!organization) {
    set({ status: 'signedOut', notice: null });
    return;
  }
  selectCookie(organization.id);
  set({ status: 'signedIn', user, organizations, organization, mode: modeCookie() });
}

async function renewOnce(): Promise<boolean> {
  const res = await authApi.POST('/api/v1/auth/refresh-token');
  if (res.data) {
    tokens(res.data.accessToken, res.data.expiresIn);
    return true;
  }
  if (res.response.status === 401 || res.response.status === 403) {
    // The server ended the session (a reused refresh cookie revokes it, as do logout and expiry).
    ended(state.status === 'signedIn' || sessionStorage.getItem(HAD_SESSION) ? 'ended' : null);
  }
  return false;
}

/**
 * Renews the access token through the HTTP-only refresh cookie. One renewal at a time, across
 * tabs too (Web Locks): the cookie rotates on every use, and a second use of an old one ends the session.
 */
export function renew(): Promise<boolean> {
  if (renewing) return renewing;
  const run = () => renewOnce().catch(() => false);
  const p = (async () => (navigator.locks ? await navigator.locks.request('paymesh-refresh', run) : await run()))();
  renewing = p;
  void p.finally(() => {
    renewing = null;
  });
  return p;
}
onUnauthorized(renew);

/** At load: a refresh cookie from an earlier visit signs in without a ceremony. */
export async function startSession(): Promise<void> {
  if (!(await renew())) {
    if (state.status === 'starting') set({ status: 'signedOut', notice: null });
    return;
  }
  const check = await authApi.GET('/api/v1/auth/login/check', {
    headers: { authorization: `Bearer ${lastToken ?? ''}` },
  });
  const who = must(check);
  signedIn(who.user, who.organizations);
}

function isCreationOptions(o: object): o is PublicKeyCredentialCreationOptionsJSON {
  return 'rp' in o && 'user' in o && 'pubKeyCredParams' in o && 'challenge' in o;
}

function isRequestOptions(o: object): o is PublicKeyCredentialRequestOptionsJSON {
  return 'challenge' in o && !('pubKeyCredParams' in o);
}

/** Thrown when the browser cannot do WebAuthn at all. */
export class PasskeysUnsupported extends Error {}

/**
 * The WebAuthn ceremony: registration with an enrollment token (a new member's first passkey),
 * authentication otherwise; ends signed in (access token in memory, refresh cookie set by the API).
 */
export async function signInWithPasskey(email: string, enrollmentToken?: string): Promise<void> {
  if (!browserSupportsWebAuthn()) throw new PasskeysUnsupported('WebAuthn is not available');
  const started = must(
    await authApi.POST('/api/v1/auth', { body: { email, ...(enrollmentToken ? { enrollmentToken } : {}) } }),
  );
  let response;
  if (started.flow === 'registration') {
    if (!isCreationOptions(started.options)) throw new ApiError(500, 'unexpected registration options');
    response = await startRegistration({ optionsJSON: started.options });
  } else {
    if (!isRequestOptions(started.options)) throw new ApiError(500, 'unexpected authentication options');
    response = await startAuthentication({ optionsJSON: started.options });
  }
  const done = must(
    await authApi.POST('/api/v1/auth/authenticate-complete', {
      body: { challengeId: started.challengeId, response },
    }),
  );
  tokens(done.accessToken, done.expiresIn);
  signedIn(done.user, done.organizations);
}

/** Acts on another organization of the member (the API reads the selectedOrganization cookie). */
export function switchOrganization(id: string): void {
  if (state.status !== 'signedIn') return;
  const organization = state.organizations.find((o) => o.id === id);
  if (!organization) return;
  selectCookie(id);
  set({ ...state, organization });
}

/** Acts on live or on test-mode data from the next call on. */
export function switchDataMode(mode: DataMode): void {
  if (state.status !== 'signedIn') return;
  writeCookie(MODE_COOKIE, mode);
  set({ ...state, mode });
}

export async function signOut(): Promise<void> {
  await authApi
    .POST('/api/v1/auth/logout', lastToken ? { headers: { authorization: `Bearer ${lastToken}` } } : {})
    .catch(() => undefined);
  ended('loggedOut');
}

/** What a role may do: Viewers read, Editors write, Admins also void and change providers and domains. */
export function can(role: Role, need: 'write' | 'admin'): boolean {
  return need === 'write' ? role !== 'Viewer' : role === 'Admin';
}
