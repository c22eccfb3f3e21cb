import { dataTemplateRequest } from '@paymesh/contracts';
import { clientStreaming, serverStreaming } from '@paymesh/grpc';
import type { billing } from '@paymesh/proto';
import type { DataIoDeps } from '../app/data-io-port';
import { exportData } from '../app/data-export';
import { importData } from '../app/data-import';
import { dataTemplate } from '../app/data-template';
import { bodyOf, jsonUnary, orgKeyOf } from './json';

/** gRPC handlers of data import/export. */
export function dataIoHandlers(
  deps: DataIoDeps,
): Pick<billing.BillingServiceServer, 'dataImportTemplate' | 'importData' | 'exportData'> {
  return {
    dataImportTemplate: jsonUnary(deps.logger, 'billing/DataImportTemplate', async (req) => {
      orgKeyOf(req);
      return dataTemplate(bodyOf(req, dataTemplateRequest).entityType);
    }),
    importData: clientStreaming(
      deps.logger,
      'billing/ImportData',
      async (messages: AsyncIterable<billing.DataImportChunk>) => ({
        json: JSON.stringify(await importData(deps, messages)),
      }),
    ),
    exportData: serverStreaming(deps.logger, 'billing/ExportData', (req: billing.BillingJsonRequest) =>
      exportData(deps, req),
    ),
  };
}
