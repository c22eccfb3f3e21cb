import { ValidationError } from '@paymesh/core';
import { isInEuVatArea } from '../domain/eu';
import { ossDistanceSales, ossThresholdStatus, type OssThresholdStatus } from '../domain/oss-threshold';
import type { TaxRecordDoc } from '../domain/source-event';
import { TAX_RECORDS } from '../store/collections';
import type { OrgKey, TaxDeps } from './deps';

/**
 * The organization's intra-EU B2C distance sales of a calendar year against the OSS threshold,
 * summed from the tax-record ledger (entries with a tax point in the year; EUR net amounts).
 */
export async function getOssThresholdStatus(
  deps: TaxDeps,
  key: OrgKey,
  year: number | undefined,
): Promise<OssThresholdStatus> {
  const current = deps.clock.now().getUTCFullYear();
  const y = year ?? current;
  if (!Number.isInteger(y) || y < 2021 || y > current) {
    throw new ValidationError(`year must be between 2021 (start of the OSS scheme) and ${current}`, { field: 'year' });
  }
  const { items } = await deps.store.collection<TaxRecordDoc>(TAX_RECORDS).find({
    organizationId: key.organizationId,
    mode: key.mode,
    taxPointDate: { $gte: `${y}-01-01`, $lte: `${y}-12-31` },
    'buyer.type': 'consumer',
  });
  const { totalEurCents, unconvertedEntries } = ossDistanceSales(items, isInEuVatArea);
  deps.logger.debug(
    { organizationId: key.organizationId, year: y, entries: items.length, totalEurCents, unconvertedEntries },
    'oss threshold status',
  );
  return ossThresholdStatus(y, totalEurCents, unconvertedEntries);
}
