import { siteCreated, Subjects, type SiteCreated } from '@paymesh/contracts';
import type { Bus, EventEnvelope } from '@paymesh/bus';
import type { Logger } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import { initSiteInvoicing } from '../app/init-site-invoicing';


/** Billing's reactions to other services' events. */
export async function startConsumers(bus: Bus, store: DocumentStore, logger: Logger) {
  const sub = await bus.subscribe<SiteCreated>({
    durable: 'site-created',
    // Money and tenancy facts are never dropped: retried (capped backoff) until handled.
    maxDeliver: -1,
    subjects: Subjects.siteCreated,
    decode: (d) => siteCreated.parse(d),
    handler: async (event: EventEnvelope<SiteCreated>) => {
      logger.info({ eventId: event.id, siteId: event.data.siteId }, 'checkout.site.created received');
      await initSiteInvoicing(store, logger, { ...event.data, at: event.occurredAt });
    },
  });
  return [sub];
}
