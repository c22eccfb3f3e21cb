import { ValidationError } from '@paymesh/core';
import { ossThresholdStatus, type OssThresholdStatus } from '../domain/oss-threshold';
import type { OrgKey, TaxDeps } from './deps';

/**
 * The organization's intra-EU B2C distance sales of a calendar year against the OSS threshold.
 *
 * NOTE: the tax-record ledger is not written yet, so the total is that of an empty ledger (0).
 * When the ledger lands, sum its cross-border EU B2C entries of the year here.
 */
export async function getOssThresholdStatus(deps: TaxDeps, key: OrgKey, year: number | undefined): Promise<OssThresholdStatus> {
  const current = deps.clock.now().getUTCFullYear();
  const y = year ?? current;
  if (!Number.isInteger(y) || y < 2021 || y > current) {
    throw new ValidationError(`year must be between 2021 (start of the OSS scheme) and ${current}`, { field: 'year' });
  }
  deps.logger.debug({ organizationId: key.organizationId, year: y }, 'oss threshold status');
  return ossThresholdStatus(y, 0);
}
