import type { tax } from '@paymesh/proto';
import type { TaxDeps } from '../app/deps';
import { getEcbRates } from '../app/get-ecb-rates';
import { getTaxRecord } from '../app/get-tax-record';
import { getTaxRecordRebuild } from '../app/get-tax-record-rebuild';
import { listTaxRecords } from '../app/list-tax-records';
import { startTaxRecordRebuild } from '../app/start-tax-record-rebuild';
import { taxReport } from '../app/tax-report';
import { orgKeyOf, taxEdge } from './json';

/** What the handlers need of the rebuild worker: a nudge when a job was queued. */
export interface RebuildWaker {
  wake(): void;
}

/** gRPC handlers of the tax-record ledger RPCs. */
export function ledgerHandlers(
  deps: TaxDeps,
  rebuilds: RebuildWaker,
): Pick<
  tax.TaxServiceServer,
  'listTaxRecords' | 'getTaxRecord' | 'startTaxRecordRebuild' | 'getTaxRecordRebuild' | 'taxReport' | 'getEcbRates'
> {
  const rpc = taxEdge(deps.logger);
  return {
    listTaxRecords: rpc.json('listTaxRecords', async (query, req) => listTaxRecords(deps, orgKeyOf(req), query)),
    getTaxRecord: rpc.json('getTaxRecord', async (_body, req) => getTaxRecord(deps, orgKeyOf(req), req.id)),
    startTaxRecordRebuild: rpc.json('startTaxRecordRebuild', async (_body, req) =>
      startTaxRecordRebuild(deps, orgKeyOf(req), () => rebuilds.wake()),
    ),
    getTaxRecordRebuild: rpc.json('getTaxRecordRebuild', async (_body, req) =>
      getTaxRecordRebuild(deps, orgKeyOf(req), req.id),
    ),
    taxReport: rpc.json('taxReport', async (request, req) => taxReport(deps, orgKeyOf(req), request)),
    // The same rates for every organization; the caller is still named (and checked) like every call.
    getEcbRates: rpc.json('getEcbRates', async (query, req) => {
      orgKeyOf(req);
      return getEcbRates(deps, query);
    }),
  };
}
