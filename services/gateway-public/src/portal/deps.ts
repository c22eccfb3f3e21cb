import type { Clock, Logger } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import type { Clients } from '../clients';

/** Portal settings of the deployment (config), resolved at start-up. */
export interface PortalSettings {
  /** System-level switch of the buyer portal. */
  enabled: boolean;
  /** System-level switch of magic links. */
  magicLinksEnabled: boolean;
  /** HMAC key of magic links (shared with gateway-admin). */
  linkKey: Buffer;
  /** HMAC key under which one-time codes are stored. */
  otpKey: Buffer;
  otpTtlSeconds: number;
  otpMaxAttempts: number;
  otpRequestsPerEmail: number;
  otpRequestWindowSeconds: number;
  sessionTtlSeconds: number;
  refreshTtlSeconds: number;
  /**
   * Origin of the main frontend (MAIN_FRONTEND_ORIGIN): it serves every organization's pages, so
   * its host names no organization at sign-in.
   */
  mainFrontendOrigin?: string;
  /** Mark the refresh cookie Secure (everywhere but NODE_ENV=development). */
  cookieSecure: boolean;
  documentsDeadlineMs: number;
}

export interface PortalDeps {
  store: DocumentStore;
  clock: Clock;
  logger: Logger;
  clients: Clients;
  settings: PortalSettings;
}

/** What a portal session token stands for. */
export interface PortalPrincipal {
  loginId: string;
  organizationId: string;
  mode: 'live' | 'test';
  /** Trimmed, lower-cased. */
  email: string;
}
