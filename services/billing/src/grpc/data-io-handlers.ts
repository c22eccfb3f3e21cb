import { ValidationError, decodeJson } from '@paymesh/core';
import { billingStreamRpc } from '@paymesh/contracts';
import { clientStreaming, serverStreaming, type JsonEnvelope } from '@paymesh/grpc';
import type { billing } from '@paymesh/proto';
import type { DataIoDeps } from '../app/data-io-port';
import { exportData } from '../app/data-export';
import { importData } from '../app/data-import';
import { getDataImport, startDataImport } from '../app/data-import-job';
import { dataTemplate } from '../app/data-template';
import { datevExportFile, exportDatev, getDatevExport, listDatevExports, startDatevExport } from '../app/datev-export';
import { exportGdpdu, type GdpduDeps } from '../app/gdpdu-export';
import { actorOf, billingEdge, orgKeyOf } from './json';

/** The CSV bytes after ImportData's header message. */
async function* fileChunks(rest: AsyncIterator<billing.DataImportChunk>): AsyncGenerator<Uint8Array> {
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value.data;
  }
}

/** An import stream: its first message, the header (tenant and JSON body), and the CSV bytes after it. */
async function importStream(messages: AsyncIterable<billing.DataImportChunk>, method: string) {
  const it = messages[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done || !first.value.header) throw new ValidationError(`the first message of ${method} carries the header`);
  const envelope = first.value.header;
  return { envelope, key: orgKeyOf(envelope), file: fileChunks(it) };
}

/** ExportData's CSV chunks as messages. */
async function* exportChunks(deps: DataIoDeps, req: JsonEnvelope): AsyncGenerator<billing.DataExportChunk> {
  const key = orgKeyOf(req);
  const query = decodeJson(billingStreamRpc.exportData.request, req.bodyJson);
  for await (const data of exportData(deps, key, query)) yield { data };
}

/** ExportDatev's zip chunks as messages. */
async function* datevChunks(deps: DataIoDeps, req: JsonEnvelope): AsyncGenerator<billing.DataExportChunk> {
  const key = orgKeyOf(req);
  const query = decodeJson(billingStreamRpc.exportDatev.request, req.bodyJson);
  for await (const data of exportDatev(deps, key, query, actorOf(req))) yield { data };
}

/** DownloadDatevExport's chunks: the kept zip of a completed export. */
async function* keptDatevChunks(deps: DataIoDeps, req: JsonEnvelope): AsyncGenerator<billing.DataExportChunk> {
  const key = orgKeyOf(req);
  const { id } = decodeJson(billingStreamRpc.downloadDatevExport.request, req.bodyJson);
  for await (const data of datevExportFile(deps, key, id)) yield { data };
}

/** ExportGdpdu's zip chunks as messages. */
async function* gdpduChunks(deps: GdpduDeps, req: JsonEnvelope): AsyncGenerator<billing.DataExportChunk> {
  const key = orgKeyOf(req);
  const query = decodeJson(billingStreamRpc.exportGdpdu.request, req.bodyJson);
  for await (const data of exportGdpdu(deps, key, query)) yield { data };
}

/** gRPC handlers of data import/export and the accounting exports. */
export function dataIoHandlers(
  deps: GdpduDeps,
): Pick<
  billing.BillingServiceServer,
  | 'dataImportTemplate'
  | 'importData'
  | 'startDataImport'
  | 'getDataImport'
  | 'exportData'
  | 'exportDatev'
  | 'listDatevExports'
  | 'startDatevExport'
  | 'getDatevExport'
  | 'downloadDatevExport'
  | 'exportGdpdu'
> {
  const rpc = billingEdge(deps.logger);
  return {
    dataImportTemplate: rpc.json('dataImportTemplate', async ({ entityType }, req) => {
      orgKeyOf(req);
      return dataTemplate(entityType);
    }),
    importData: clientStreaming(
      deps.logger,
      'billing/ImportData',
      async (messages: AsyncIterable<billing.DataImportChunk>) => {
        const { envelope, key, file } = await importStream(messages, 'ImportData');
        const header = decodeJson(billingStreamRpc.importData.request, envelope.bodyJson);
        return { json: JSON.stringify(await importData(deps, key, header, envelope.actor, file)) };
      },
    ),
    startDataImport: clientStreaming(
      deps.logger,
      'billing/StartDataImport',
      async (messages: AsyncIterable<billing.DataImportChunk>) => {
        const { envelope, key, file } = await importStream(messages, 'StartDataImport');
        const header = decodeJson(billingStreamRpc.startDataImport.request, envelope.bodyJson);
        const job = await startDataImport(deps, key, header, actorOf(envelope), file);
        return { json: JSON.stringify(job) };
      },
    ),
    getDataImport: rpc.json('getDataImport', async ({ id }, req) => getDataImport(deps, orgKeyOf(req), id)),
    exportData: serverStreaming(deps.logger, 'billing/ExportData', (req: JsonEnvelope) => exportChunks(deps, req)),
    exportDatev: serverStreaming(deps.logger, 'billing/ExportDatev', (req: JsonEnvelope) => datevChunks(deps, req)),
    listDatevExports: rpc.json('listDatevExports', async (q, req) => listDatevExports(deps, orgKeyOf(req), q)),
    startDatevExport: rpc.json('startDatevExport', async (body, req) =>
      startDatevExport(deps, orgKeyOf(req), body, actorOf(req)),
    ),
    getDatevExport: rpc.json('getDatevExport', async ({ id }, req) => getDatevExport(deps, orgKeyOf(req), id)),
    downloadDatevExport: serverStreaming(deps.logger, 'billing/DownloadDatevExport', (req: JsonEnvelope) =>
      keptDatevChunks(deps, req),
    ),
    exportGdpdu: serverStreaming(deps.logger, 'billing/ExportGdpdu', (req: JsonEnvelope) => gdpduChunks(deps, req)),
  };
}
