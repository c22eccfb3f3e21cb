import { ValidationError } from '@paymesh/core';
import type { TaxReportPeriod, TaxReportRequest } from '@paymesh/contracts';
import type { AggregateRow, AggregateSpec, Filter } from '@paymesh/store';
import {
  byCountryDetailRows,
  byCountryRows,
  currencyRows,
  revenueByCountryRows,
  totalsOf,
} from '../domain/reports/build';
import { EurConverter } from '../domain/reports/eur';
import { findEcbPublication } from './find-ecb-publication';
import { byCountryCsv, revenueByCountryCsv, vatOssElsterCsv, vatOssXml } from '../domain/reports/exports';
import {
  buildVatOss,
  buildVatOssDetails,
  declaredKey,
  OSS_DECISION,
  ossLineRows,
  vatCountry,
  type OssCorrectionItem,
  type OssInput,
} from '../domain/reports/oss';
import {
  compareQuarters,
  localDay,
  periodOf,
  quarterKey,
  quarterOfDay,
  quarterPeriod,
  shiftDay,
  type Quarter,
} from '../domain/reports/period';
import {
  COUNTRY_SPEC,
  ENTRY_SPEC,
  entryGroups,
  LINE_SPEC,
  lineGroups,
  reportFilters,
  type LineGroup,
  type ReportScope,
} from '../domain/reports/query';
import type { TaxRecordDoc } from '../domain/source-event';
import { TAX_RECORDS } from '../store/collections';
import type { OrgKey, TaxDeps } from './deps';
import { getTaxSettings } from './tax-settings';

/**
 * Reports over the tax-record ledger. Figures come from grouped sums the store computes over the
 * period's entries (index on organization, mode and tax-point day); only VAT OSS reads single
 * entries: the corrections dated in the quarter, to tell which quarter each one corrects.
 */

const OSS_REPORTS = new Set(['vat-oss', 'vat-oss-details', 'vat-oss-export', 'vat-oss-export-elster']);
const bad = (field: string, message: string) => new ValidationError(`${field}: ${message}`, { field });

function periodFor(req: TaxReportRequest): { period: TaxReportPeriod; quarter: Quarter | null } {
  if (OSS_REPORTS.has(req.report)) {
    if (req.year === undefined || req.quarter === undefined)
      throw bad(req.year === undefined ? 'year' : 'quarter', 'VAT OSS reports need year and quarter (1 to 4)');
    if (req.startDate !== undefined || req.endDate !== undefined)
      throw bad(
        'startDate',
        'VAT OSS reports cover the quarter given by year and quarter; startDate and endDate are not taken',
      );
    const quarter = { year: req.year, quarter: req.quarter };
    return { period: quarterPeriod(quarter, req.timezone), quarter };
  }
  if (req.year !== undefined || req.quarter !== undefined)
    throw bad('year', 'only VAT OSS reports take year and quarter; give startDate and endDate');
  if (req.startDate === undefined || req.endDate === undefined)
    throw bad(req.startDate === undefined ? 'startDate' : 'endDate', 'is required');
  return { period: periodOf(req.startDate, req.endDate, req.timezone), quarter: null };
}

async function aggregate(deps: TaxDeps, filters: Filter[], spec: AggregateSpec): Promise<AggregateRow[]> {
  const col = deps.store.collection<TaxRecordDoc>(TAX_RECORDS);
  const parts = await Promise.all(filters.map((f) => col.aggregate(f, spec)));
  return parts.flat();
}

/** Entries matching the filters, read whole (for the few a report needs one by one). */
async function entries(deps: TaxDeps, filters: Filter[]): Promise<TaxRecordDoc[]> {
  const col = deps.store.collection<TaxRecordDoc>(TAX_RECORDS);
  const pages = await Promise.all(filters.map((f) => col.find(f)));
  return pages.flatMap((p) => p.items);
}

async function entriesById(deps: TaxDeps, key: OrgKey, ids: string[]): Promise<Map<string, TaxRecordDoc>> {
  const col = deps.store.collection<TaxRecordDoc>(TAX_RECORDS);
  const out = new Map<string, TaxRecordDoc>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 500) {
    const page = await col.find({
      organizationId: key.organizationId,
      mode: key.mode,
      id: { $in: unique.slice(i, i + 500) },
    });
    for (const e of page.items) out.set(e.id, e);
  }
  return out;
}

/** An entry's lines as line groups (for corrections counted with the quarter of their sale). */
function linesOf(e: TaxRecordDoc): LineGroup[] {
  return e.lines.map((l) => ({
    taxCountry: l.taxCountry,
    buyerCountry: e.buyer.country,
    currency: e.currency,
    taxRate: l.taxRate,
    taxRateCode: l.taxRateCode,
    rateType: l.rateType ?? null,
    decision: l.decision,
    itemType: l.itemType,
    net: l.net,
    tax: l.tax,
    lines: 1,
  }));
}

interface QuarterFigures {
  /** Lines of the quarter's sales and of the corrections of those sales dated in the quarter. */
  lines: LineGroup[];
  /** Corrections dated in the quarter of sales of earlier quarters. */
  corrections: OssCorrectionItem[];
}

/** Corrections dated in `scope`'s period, split by the quarter of the sale each one corrects. */
async function correctionsIn(
  deps: TaxDeps,
  key: OrgKey,
  scope: ReportScope,
): Promise<{ entry: TaxRecordDoc; saleQuarter: Quarter | null }[]> {
  const found = await entries(deps, reportFilters(scope, { entryType: { $in: ['reversal', 'credit'] } }));
  const sales = await entriesById(
    deps,
    key,
    found.flatMap((e) => (e.correctsRecordId ? [e.correctsRecordId] : [])),
  );
  return found.map((entry) => {
    const sale = entry.correctsRecordId ? sales.get(entry.correctsRecordId) : undefined;
    return { entry, saleQuarter: sale ? quarterOfDay(localDay(sale, scope.period.timezone)) : null };
  });
}

function ossCorrectionItems(entry: TaxRecordDoc, period: Quarter): OssCorrectionItem[] {
  const byCountry = new Map<string, number>();
  for (const l of entry.lines) {
    if (l.decision !== OSS_DECISION || l.taxCountry === null) continue;
    const cc = vatCountry(l.taxCountry);
    byCountry.set(cc, (byCountry.get(cc) ?? 0) + l.tax);
  }
  return [...byCountry].map(([country, tax]) => ({
    recordId: entry.id,
    correctsRecordId: entry.correctsRecordId ?? '',
    country,
    period,
    currency: entry.currency,
    tax,
  }));
}

async function quarterFigures(
  deps: TaxDeps,
  key: OrgKey,
  scope: ReportScope,
  quarter: Quarter,
): Promise<QuarterFigures> {
  const [sales, corrections] = await Promise.all([
    aggregate(deps, reportFilters(scope, { entryType: 'sale' }), LINE_SPEC),
    correctionsIn(deps, key, scope),
  ]);
  const lines = lineGroups(sales);
  const earlier: OssCorrectionItem[] = [];
  for (const { entry, saleQuarter } of corrections) {
    // A correction of a sale of this quarter (or of one no longer found) counts with the quarter's supplies.
    if (saleQuarter === null || compareQuarters(saleQuarter, quarter) >= 0) lines.push(...linesOf(entry));
    else earlier.push(...ossCorrectionItems(entry, saleQuarter));
  }
  return { lines, corrections: earlier };
}

/** OSS VAT (EUR cents) per country of the lines. */
function ossVatByCountry(lines: LineGroup[], eur: EurConverter): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of ossLineRows(lines))
    out.set(r.country, (out.get(r.country) ?? 0) + (eur.cents(r.currency, r.tax) ?? 0));
  return out;
}

/**
 * VAT declared so far for each (country, earlier quarter) this return corrects: that quarter's own
 * figures (the ledger never changes a dated entry, so they are what its return declared) plus the
 * corrections of it dated in the quarters between.
 */
async function declaredVat(
  deps: TaxDeps,
  key: OrgKey,
  scope: ReportScope,
  quarter: Quarter,
  corrections: OssCorrectionItem[],
  eur: EurConverter,
): Promise<Map<string, number>> {
  const declared = new Map<string, number>();
  const periods = new Map(corrections.map((c) => [quarterKey(c.period), c.period]));
  for (const p of periods.values()) {
    const pScope = { ...scope, period: quarterPeriod(p, scope.period.timezone) };
    const own = await quarterFigures(deps, key, pScope, p);
    for (const [cc, vat] of ossVatByCountry(own.lines, eur)) declared.set(declaredKey(cc, p), vat);
    const betweenStart = shiftDay(pScope.period.endDate, 1);
    const betweenEnd = shiftDay(scope.period.startDate, -1);
    if (betweenStart > betweenEnd) continue;
    const between = await correctionsIn(deps, key, {
      ...scope,
      period: periodOf(betweenStart, betweenEnd, scope.period.timezone),
    });
    for (const { entry, saleQuarter } of between) {
      if (!saleQuarter || compareQuarters(saleQuarter, p) !== 0) continue;
      for (const item of ossCorrectionItems(entry, p)) {
        const k = declaredKey(item.country, p);
        declared.set(k, (declared.get(k) ?? 0) + (eur.cents(item.currency, item.tax) ?? 0));
      }
    }
  }
  // Countries and quarters this return corrects that had no OSS VAT before still get a 0.
  for (const c of corrections)
    if (!declared.has(declaredKey(c.country, c.period))) declared.set(declaredKey(c.country, c.period), 0);
  return declared;
}

async function ossInput(
  deps: TaxDeps,
  key: OrgKey,
  scope: ReportScope,
  quarter: Quarter,
  eur: EurConverter,
  echo: OssInput['echo'],
): Promise<OssInput> {
  const [{ settings }, figures] = await Promise.all([
    getTaxSettings(deps, key),
    quarterFigures(deps, key, scope, quarter),
  ]);
  const declared = await declaredVat(deps, key, scope, quarter, figures.corrections, eur);
  return {
    quarter,
    period: scope.period,
    echo,
    settings: { homeCountry: settings.homeCountry, vatId: settings.vatId },
    lines: figures.lines,
    corrections: figures.corrections,
    declared,
    eur,
  };
}

/** Answers one report (or export file) of the organization's ledger. */
export async function taxReport(deps: TaxDeps, key: OrgKey, req: TaxReportRequest): Promise<unknown> {
  const { period, quarter } = periodFor(req);
  const scope: ReportScope = { ...key, period, source: req.source, currency: req.currency, siteId: req.siteId };
  const echo = { period, source: req.source, currency: req.currency ?? null, siteId: req.siteId ?? null };
  // The OSS rule for every report: the ECB rate of the period's last day or the next publication day.
  const eur = new EurConverter(req.eurRates ?? {}, period.endDate, await findEcbPublication(deps, period.endDate));
  /** The answer with the rates its figures were converted at (known once the rows are built). */
  const answer = <T extends { data: unknown[] }>(body: T) => ({ ...echo, ...eur.summary(), ...body });

  const byCountry = async () => {
    const data = byCountryRows(lineGroups(await aggregate(deps, reportFilters(scope), COUNTRY_SPEC)), eur);
    return answer({ data, totals: totalsOf(data) });
  };
  const revenue = async () => {
    const data = revenueByCountryRows(entryGroups(await aggregate(deps, reportFilters(scope), ENTRY_SPEC)), eur);
    return answer({ data, totals: totalsOf(data) });
  };
  const ossQuarter = (): Quarter => {
    if (!quarter) throw new Error('a VAT OSS report has its quarter (periodFor)');
    return quarter;
  };
  const oss = async () => buildVatOss(await ossInput(deps, key, scope, ossQuarter(), eur, echo));

  switch (req.report) {
    case 'by-country':
      return byCountry();
    case 'by-country-details': {
      const data = byCountryDetailRows(lineGroups(await aggregate(deps, reportFilters(scope), LINE_SPEC)), eur);
      return answer({ data, totals: totalsOf(data) });
    }
    case 'revenue-by-country':
      return revenue();
    case 'currencies': {
      const data = currencyRows(entryGroups(await aggregate(deps, reportFilters(scope), ENTRY_SPEC)), eur);
      return answer({ data, totals: totalsOf(data) });
    }
    case 'vat-oss':
      return oss();
    case 'vat-oss-details':
      return buildVatOssDetails(await ossInput(deps, key, scope, ossQuarter(), eur, echo));
    case 'by-country-export':
      return byCountryCsv(await byCountry());
    case 'revenue-by-country-export':
      return revenueByCountryCsv(await revenue());
    case 'vat-oss-export':
      return vatOssXml(await oss(), deps.clock.now().toISOString());
    case 'vat-oss-export-elster':
      return vatOssElsterCsv(await oss());
  }
}
