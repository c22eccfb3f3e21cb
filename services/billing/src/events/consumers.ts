import { z } from 'zod';
import type { Bus, EventEnvelope } from '@paymesh/bus';
import type { Logger } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import { initSiteInvoicing } from '../app/init-site-invoicing';

const siteCreated = z.object({
  organizationId: z.string(),
  siteId: z.string(),
  mode: z.enum(['live', 'test']),
  name: z.string(),
});

/** Billing's reactions to other services' events. */
export async function startConsumers(bus: Bus, store: DocumentStore, logger: Logger) {
  const sub = await bus.subscribe<z.infer<typeof siteCreated>>({
    durable: 'site-created',
    subjects: 'checkout.site.created',
    decode: (d) => siteCreated.parse(d),
    handler: async (event: EventEnvelope<z.infer<typeof siteCreated>>) => {
      logger.info({ eventId: event.id, siteId: event.data.siteId }, 'checkout.site.created received');
      await initSiteInvoicing(store, logger, { ...event.data, at: event.occurredAt });
    },
  });
  return [sub];
}
