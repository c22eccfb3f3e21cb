import type { Clock, Logger } from '@paymesh/core';
import type { Committer } from '@paymesh/bus';
import type { EventMap } from '@paymesh/contracts';
import type { DocumentStore } from '@paymesh/store';
import type { Clients } from '../clients';

/** Dashboard sign-in settings (WebAuthn relying party, JWT key and lifetimes). */
export interface AuthSettings {
  /** HS256 key of access tokens. */
  jwtKey: Uint8Array;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  challengeTtlSeconds: number;
  enrollmentTtlSeconds: number;
  rpId: string;
  rpName: string;
  /** Origins the dashboard is served from; WebAuthn responses from other origins are refused. */
  origins: string[];
  cookieSecure: boolean;
}

/** Buyer portal magic links (deployment settings). */
export interface PortalLinkSettings {
  /** System-level switches. */
  enabled: boolean;
  magicLinksEnabled: boolean;
  /** HMAC key shared with gateway-public. */
  linkKey: Buffer;
  /** Portal page of gateway-public, no trailing slash. */
  publicUrl: string;
  defaultTtlMinutes: number;
  maxTtlMinutes: number;
}

/** What the gateway's use cases need; assembled in main.ts. */
export interface AdminDeps {
  store: DocumentStore;
  /** Saves state with its events (outbox) and publishes them after the commit. */
  outbox: Pick<Committer<EventMap>, 'commit'>;
  clock: Clock;
  logger: Logger;
  clients: Clients;
  auth: AuthSettings;
  /** Absent: the portal is off for this deployment. */
  portal?: PortalLinkSettings;
}
