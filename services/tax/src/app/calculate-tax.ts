import type { CalculateTaxRequest, TaxCalculation, VatIdCheck, VatIdValidationMode } from '@paymesh/contracts';
import { calculateTax } from '../domain/engine';
import {
  assertKnownCountries,
  effectiveMode,
  engineInputOf,
  ossYearsOf,
  taxPointOf,
  vatIdPlanOf,
} from '../domain/calculation-input';
import type { TaxSettings } from '../domain/tax-settings';
import type { OrgKey, TaxDeps } from './deps';
import { getOssThresholdStatus } from './oss-threshold-status';
import type { OssFlagCache } from './oss-flag';
import { loadRateBook } from './rate-book';
import { getTaxSettings } from './tax-settings';

/** Whether the OSS threshold was exceeded in the tax point's year or the year before (cached briefly). */
function ossThresholdExceeded(deps: TaxDeps, flags: OssFlagCache, key: OrgKey, taxPoint: string): Promise<boolean> {
  const years = ossYearsOf(taxPoint, deps.clock.now().getUTCFullYear());
  if (years.length === 0) return Promise.resolve(false);
  return flags.get(`${key.organizationId}:${key.mode}:${years[0]}`, async () => {
    const statuses = await Promise.all(years.map((y) => getOssThresholdStatus(deps, key, y)));
    return statuses.some((s) => s.exceeded);
  });
}

async function resolveVatIdCheck(
  deps: TaxDeps,
  settings: TaxSettings,
  req: CalculateTaxRequest,
  mode: VatIdValidationMode,
): Promise<VatIdCheck> {
  const plan = vatIdPlanOf(req, mode);
  if (plan.kind !== 'check') return plan.check;
  // The requester is the organization's own VAT ID, from the settings already read.
  return plan.mode === 'vies'
    ? deps.vatIds.check(plan.vatId, 'vies', { vatId: settings.vatId })
    : deps.vatIds.check(plan.vatId, 'format');
}

/**
 * CalculateTax: the organization's tax settings, rate book and OSS threshold status, the buyer's
 * VAT ID check (a stored one when the request brings it, else by the effective mode: `vies` only
 * while the organization has `viesEnabled`), then the one engine. The tax point defaults to today
 * (UTC).
 */
export async function runCalculateTax(
  deps: TaxDeps,
  flags: OssFlagCache,
  req: CalculateTaxRequest,
): Promise<TaxCalculation> {
  assertKnownCountries(req);
  const key: OrgKey = { organizationId: req.organizationId, mode: req.mode };
  const now = deps.clock.now();
  const taxPoint = taxPointOf(req.date, now);
  const checked = (async (): Promise<{ settings: TaxSettings; mode: VatIdValidationMode; vatIdCheck: VatIdCheck }> => {
    const { settings } = await getTaxSettings(deps, key);
    const mode = effectiveMode(req.vatIdValidation, settings);
    return { settings, mode, vatIdCheck: await resolveVatIdCheck(deps, settings, req, mode) };
  })();
  const [{ settings, mode, vatIdCheck }, book, ossExceeded] = await Promise.all([
    checked,
    loadRateBook(deps, key),
    ossThresholdExceeded(deps, flags, key, taxPoint),
  ]);
  const result = calculateTax(engineInputOf(req, { taxPoint, mode, settings, vatIdCheck }), {
    settings,
    ossThresholdExceeded: ossExceeded,
    rates: book.rates,
    rules: book.rules,
    now,
  });
  deps.logger.debug(
    {
      organizationId: key.organizationId,
      mode: key.mode,
      totalGross: result.totalGross,
      totalTax: result.totalTax,
      buyerType: result.buyer.type,
    },
    'tax calculated',
  );
  return result;
}
