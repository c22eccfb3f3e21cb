import { ValidationError, decodeJson, type Logger } from '@paymesh/core';
import type { ZodTypeAny, output } from 'zod';
import { billingStreamRpc } from '@paymesh/contracts';
import { clientStreaming, serverStreaming, type JsonEnvelope } from '@paymesh/grpc';
import type { billing } from '@paymesh/proto';
import type { DataIoDeps } from '../app/data-io-port';
import type { OrgKey } from '../app/deps';
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

type ImportEnvelope = NonNullable<billing.DataImportChunk['header']>;

/**
 * A client-streaming import RPC: the first message is the header (tenant and JSON body, decoded by
 * `schema`), the rest the CSV bytes `run` reads; its result is answered as JSON.
 */
function importRpc<S extends ZodTypeAny>(
  logger: Logger,
  method: string,
  schema: S,
  run: (key: OrgKey, header: output<S>, envelope: ImportEnvelope, file: AsyncGenerator<Uint8Array>) => Promise<unknown>,
) {
  return clientStreaming(logger, `billing/${method}`, async (messages: AsyncIterable<billing.DataImportChunk>) => {
    const it = messages[Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done || !first.value.header)
      throw new ValidationError(`the first message of ${method} carries the header`);
    const envelope = first.value.header;
    const key = orgKeyOf(envelope);
    const header = decodeJson(schema, envelope.bodyJson);
    return { json: JSON.stringify(await run(key, header, envelope, fileChunks(it))) };
  });
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
    importData: importRpc(
      deps.logger,
      'ImportData',
      billingStreamRpc.importData.request,
      (key, header, envelope, file) => importData(deps, key, header, envelope.actor, file),
    ),
    startDataImport: importRpc(
      deps.logger,
      'StartDataImport',
      billingStreamRpc.startDataImport.request,
      (key, header, envelope, file) => startDataImport(deps, key, header, actorOf(envelope), file),
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
