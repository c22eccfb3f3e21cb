import '@paymesh/telemetry/register';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { registerDocumentsService } from './grpc/server';
import { PdfRenderer } from './render/pdf-renderer';
import { collections } from './store/collections';

void runBackendService({
  name: 'documents',
  config,
  collections,
  async setup({ grpc, logger, store }) {
    const renderer = new PdfRenderer({
      executablePath: config.CHROMIUM_PATH,
      pages: config.PDF_PAGES,
      maxQueue: config.PDF_MAX_QUEUE,
      timeoutMs: config.PDF_TIMEOUT_MS,
      logger,
    });
    registerDocumentsService(grpc, logger, store, renderer);
    return () => renderer.close();
  },
});
