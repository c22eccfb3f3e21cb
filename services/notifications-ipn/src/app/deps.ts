import type { Clock, Logger } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import type { IpnSender } from '../delivery/http-sender';
import type { DeliveryTiming } from '../domain/delivery';

/** Where the site's plaintext `whsec_...` secret comes from (checkout, at delivery time). */
export interface SigningSecrets {
  /** @throws NotFoundError when the site does not exist (for this organization). */
  get(organizationId: string, siteId: string): Promise<string>;
}

/** Everything the IPN use cases need. */
export interface IpnDeps {
  store: DocumentStore;
  logger: Logger;
  clock: Clock;
  timing: DeliveryTiming;
  secrets: SigningSecrets;
  sender: IpnSender;
}
