import { ecbRatesQuery, taxRecordListQuery, taxReportRequest } from '@paymesh/contracts';
import type { tax } from '@paymesh/proto';
import type { TaxDeps } from '../app/deps';
import { getEcbRates } from '../app/get-ecb-rates';
import { getTaxRecord } from '../app/get-tax-record';
import { getTaxRecordRebuild } from '../app/get-tax-record-rebuild';
import { listTaxRecords } from '../app/list-tax-records';
import { startTaxRecordRebuild } from '../app/start-tax-record-rebuild';
import { taxReport } from '../app/tax-report';
import { bodyOf, jsonUnary, orgKeyOf } from './json';

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
  return {
    listTaxRecords: jsonUnary(deps.logger, 'tax/ListTaxRecords', async (req) =>
      listTaxRecords(deps, orgKeyOf(req), bodyOf(req, taxRecordListQuery)),
    ),
    getTaxRecord: jsonUnary(deps.logger, 'tax/GetTaxRecord', async (req) => getTaxRecord(deps, orgKeyOf(req), req.id)),
    startTaxRecordRebuild: jsonUnary(deps.logger, 'tax/StartTaxRecordRebuild', async (req) =>
      startTaxRecordRebuild(deps, orgKeyOf(req), () => rebuilds.wake()),
    ),
    getTaxRecordRebuild: jsonUnary(deps.logger, 'tax/GetTaxRecordRebuild', async (req) =>
      getTaxRecordRebuild(deps, orgKeyOf(req), req.id),
    ),
    taxReport: jsonUnary(deps.logger, 'tax/TaxReport', async (req) =>
      taxReport(deps, orgKeyOf(req), bodyOf(req, taxReportRequest)),
    ),
    // The same rates for every organization; the caller is still named (and checked) like every call.
    getEcbRates: jsonUnary(deps.logger, 'tax/GetEcbRates', async (req) => {
      orgKeyOf(req);
      return getEcbRates(deps, bodyOf(req, ecbRatesQuery));
    }),
  };
}
