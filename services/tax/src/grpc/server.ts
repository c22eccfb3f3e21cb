import { tax } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { decodeJson } from '@paymesh/core';
import { taxSettingsPatch } from '@paymesh/contracts';
import type { TaxDeps } from '../app/deps';
import { orgKeyOf } from './json';
import { getTaxSettings, updateTaxSettings, type TaxSettingsState } from '../app/tax-settings';
import { getOssThresholdStatus } from '../app/oss-threshold-status';
import { calculateHandlers } from './calculate-handlers';
import { viesHandlers } from './vies-handlers';
import { ratesHandlers } from './rates-handlers';
import { ledgerHandlers, type RebuildWaker } from './ledger-handlers';

const SERVICE_VERSION = '0.1.0';

function settingsMessage(state: TaxSettingsState): tax.TaxSettings {
  const s = state.settings;
  return {
    ...(s.homeCountry !== null ? { homeCountry: s.homeCountry } : {}),
    ossEnabled: s.ossEnabled,
    iossEnabled: s.iossEnabled,
    viesEnabled: s.viesEnabled,
    ...(s.vatId !== null ? { vatId: s.vatId } : {}),
    priceMode: s.priceMode,
    rounding: { ...s.rounding },
    updatedAt: state.updatedAt ?? undefined,
  };
}

export function registerTaxService(grpc: GrpcServer, deps: TaxDeps, rebuilds: RebuildWaker): void {
  const { logger } = deps;
  const impl: tax.TaxServiceServer = {
    describe: unary(logger, 'tax/Describe', async () => ({ service: 'tax', version: SERVICE_VERSION })),
    getTaxSettings: unary(logger, 'tax/GetTaxSettings', async (req: tax.GetTaxSettingsRequest) =>
      settingsMessage(await getTaxSettings(deps, orgKeyOf(req))),
    ),
    updateTaxSettings: unary(logger, 'tax/UpdateTaxSettings', async (req: tax.UpdateTaxSettingsRequest) =>
      settingsMessage(await updateTaxSettings(deps, orgKeyOf(req), decodeJson(taxSettingsPatch, req.patchJson))),
    ),
    getOssThresholdStatus: unary(
      logger,
      'tax/GetOssThresholdStatus',
      async (req: tax.GetOssThresholdStatusRequest): Promise<tax.OssThresholdStatus> =>
        getOssThresholdStatus(deps, orgKeyOf(req), req.year === 0 ? undefined : req.year),
    ),
    ...calculateHandlers(deps),
    ...viesHandlers(deps),
    ...ratesHandlers(deps),
    ...ledgerHandlers(deps, rebuilds),
  };
  grpc.addService(tax.TaxServiceService, impl);
}
