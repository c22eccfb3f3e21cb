import type { Clock, Logger, SecretBox } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import type { Committer } from '@paymesh/bus';
import type { EventMap } from '@paymesh/contracts';
import type { ProviderAdapters } from '../providers/cache';
import type { ReconcileOptions } from '../domain/reconcile';

/** What the payments-webhooks use cases need; assembled in main.ts. */
export interface PaymentsDeps {
  store: DocumentStore;
  /** Saves state with its events (outbox) and publishes them after the commit. */
  outbox: Pick<Committer<EventMap>, 'commit'>;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  /** Provider adapters, cached per record and credentials. */
  adapters: ProviderAdapters;
  /** Main Backend root URL providers call, e.g. https://pay.example.com. */
  publicRootUrl: string;
  /** Production: provider API URLs must be https. */
  requireHttps: boolean;
  /** Origins merchant-supplied provider API base URLs may use; undefined = any (development). */
  allowedApiOrigins?: ReadonlySet<string> | undefined;
  /** When the reconciler asks providers about unsettled payments; absent: new payments are not scheduled for it. */
  reconcile?: ReconcileOptions | undefined;
}
