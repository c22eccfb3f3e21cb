import { tax } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { isObjectId, ValidationError } from '@paymesh/core';
import type { OrgKey, TaxDeps } from '../app/deps';
import { getTaxSettings, updateTaxSettings, type TaxSettingsState } from '../app/tax-settings';
import { getOssThresholdStatus } from '../app/oss-threshold-status';

const SERVICE_VERSION = '0.1.0';

function orgKey(req: { organizationId: string; testMode: boolean }): OrgKey {
  if (!isObjectId(req.organizationId)) throw new ValidationError('organizationId must be a 24-hex identifier', { field: 'organizationId' });
  return { organizationId: req.organizationId, mode: req.testMode ? 'test' : 'live' };
}

function settingsMessage(state: TaxSettingsState): tax.TaxSettings {
  const s = state.settings;
  return {
    ...(s.homeCountry !== null ? { homeCountry: s.homeCountry } : {}),
    ossEnabled: s.ossEnabled,
    iossEnabled: s.iossEnabled,
    viesEnabled: s.viesEnabled,
    priceMode: s.priceMode,
    rounding: { ...s.rounding },
    updatedAt: state.updatedAt ?? '',
  };
}

export function registerTaxService(grpc: GrpcServer, deps: TaxDeps): void {
  const { logger } = deps;
  const impl: tax.TaxServiceServer = {
    describe: unary(logger, 'tax/Describe', async () => ({ service: 'tax', version: SERVICE_VERSION })),
    getTaxSettings: unary(logger, 'tax/GetTaxSettings', async (req: tax.GetTaxSettingsRequest) => settingsMessage(await getTaxSettings(deps, orgKey(req)))),
    updateTaxSettings: unary(logger, 'tax/UpdateTaxSettings', async (req: tax.UpdateTaxSettingsRequest) =>
      settingsMessage(await updateTaxSettings(deps, orgKey(req), req.patchJson)),
    ),
    getOssThresholdStatus: unary(logger, 'tax/GetOssThresholdStatus', async (req: tax.GetOssThresholdStatusRequest) =>
      getOssThresholdStatus(deps, orgKey(req), req.year === 0 ? undefined : req.year),
    ),
  };
  grpc.addService(tax.TaxServiceService, impl);
}
