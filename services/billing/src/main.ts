import '@paymesh/telemetry/register';
import { resolveKeyring, SecretBox, systemClock } from '@paymesh/core';
import { downstreamAddr, runBackendService } from '@paymesh/runtime';
import { Committer } from '@paymesh/bus';
import type { EventMap } from '@paymesh/contracts';
import { grpcTaxPort } from './grpc/tax-client';
import { grpcCheckoutPort } from './grpc/checkout-client';
import { grpcEmailOutboxPort } from './grpc/email-outbox-client';
import { grpcDocumentsPort } from './grpc/documents-client';
import { config } from './config';
import { registerBillingService } from './grpc/server';
import { grpcDataIoPort } from './grpc/data-io-client';
import { collections } from './store/collections';
import { defaultDtdPath } from './app/gdpdu-export';
import { startConsumers } from './events/consumers';
import { deleteLeftImportFiles } from './app/data-import-job';

void runBackendService({
  name: 'billing',
  config,
  collections,
  async setup({ grpc, logger, bus, store, relay }) {
    const secrets = new SecretBox(resolveKeyring(config));
    const tax = grpcTaxPort(downstreamAddr(config, 'tax'), config.TAX_DEADLINE_MS);
    const checkout = grpcCheckoutPort(downstreamAddr(config, 'checkout'), config.GRPC_DEADLINE_MS);
    const emailOutbox = grpcEmailOutboxPort(downstreamAddr(config, 'notifications-ipn'), config.GRPC_DEADLINE_MS);
    const documents = grpcDocumentsPort(downstreamAddr(config, 'documents'), config.DOCUMENTS_DEADLINE_MS);
    const dataIo = grpcDataIoPort(
      downstreamAddr(config, 'tax'),
      downstreamAddr(config, 'checkout'),
      config.GRPC_DEADLINE_MS,
    );
    const outbox = new Committer<EventMap>({ store, relay });
    const gdpduDtdPath = config.GDPDU_DTD_PATH ?? defaultDtdPath();
    const clock = systemClock;
    const deps = {
      store,
      secrets,
      clock,
      logger,
      outbox,
      tax,
      checkout,
      dns: checkout,
      emailOutbox,
      documents,
      dataIo,
      gdpduDtdPath,
    };
    registerBillingService(grpc, deps);
    const leftFiles = await deleteLeftImportFiles(deps);
    if (leftFiles > 0)
      logger.info({ files: leftFiles }, 'deleted the files import jobs left when their process stopped');
    const subs = await startConsumers(bus, deps);
    return async () => {
      await Promise.all(subs.map((s) => s.stop()));
      tax.close();
      checkout.close();
      emailOutbox.close();
      documents.close();
      dataIo.close();
    };
  },
});
