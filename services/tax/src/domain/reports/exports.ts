import { stringify } from 'csv-stringify/sync';
import type {
  ByCountryReport,
  EurRateUsed,
  RevenueByCountryReport,
  TaxReportFile,
  VatOssReport,
} from '@paymesh/contracts';
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { minorDigits } from './eur';

/**
 * Export files of the reports (pure). Amounts are written as exact decimals of their minor units
 * (never through floating point), so the files add up to the reports to the cent.
 */

/** `12345` minor units of a 2-digit currency -> `123.45`; `-5` -> `-0.05`. */
export function decimal(minor: number, digits = 2): string {
  const sign = minor < 0 ? '-' : '';
  const abs = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${abs}` : `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

const amount = (minor: number, currency: string) => decimal(minor, minorDigits(currency));
/** A VAT rate in percent with two decimals (`20.00`, `5.50`). */
export const percent = (rate: number): string => rate.toFixed(2);

const periodName = (r: { period: { startDate: string; endDate: string } }) =>
  `${r.period.startDate}_${r.period.endDate}`;

export const CSV_TYPE = 'text/csv; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';

const EUR_COLUMNS = ['eur_rate', 'eur_rate_date', 'eur_rate_source', 'eur_net', 'eur_tax', 'eur_gross'];
/** A row's EUR cells; the rate's source (`ecb`, `caller`) is empty for EUR itself. */
function eurCells(
  report: { eurRates: EurRateUsed[] },
  currency: string,
  eur: { rate: number; rateDate: string; net: number; tax: number; gross: number } | null,
): string[] {
  const source = report.eurRates.find((r) => r.currency === currency)?.source ?? '';
  return eur
    ? [String(eur.rate), eur.rateDate, source, decimal(eur.net), decimal(eur.tax), decimal(eur.gross)]
    : ['', '', '', '', '', ''];
}

/** A report row of money per country and currency, with its EUR equivalent. */
interface CountryMoneyRow {
  country: string;
  currency: string;
  net: number;
  tax: number;
  gross: number;
  eur: Parameters<typeof eurCells>[2];
}

/**
 * A per-country report as CSV: country, currency and the amounts, then the report's own counts
 * (`counts`: column name -> the row's figure, in column order), then the EUR columns.
 */
function countryCsv<R extends CountryMoneyRow>(
  name: string,
  report: { data: R[]; eurRates: EurRateUsed[]; period: { startDate: string; endDate: string } },
  counts: Record<string, (row: R) => number>,
): TaxReportFile {
  const columns = Object.entries(counts);
  const rows = report.data.map((r) => [
    r.country,
    r.currency,
    amount(r.net, r.currency),
    amount(r.tax, r.currency),
    amount(r.gross, r.currency),
    ...columns.map(([, count]) => String(count(r))),
    ...eurCells(report, r.currency, r.eur),
  ]);
  const header = ['country', 'currency', 'net', 'tax', 'gross', ...columns.map(([column]) => column), ...EUR_COLUMNS];
  return {
    filename: `${name}_${periodName(report)}.csv`,
    contentType: CSV_TYPE,
    content: stringify([header, ...rows]),
  };
}

export function byCountryCsv(report: ByCountryReport): TaxReportFile {
  return countryCsv('tax-by-country', report, { lines: (r) => r.lines });
}

export function revenueByCountryCsv(report: RevenueByCountryReport): TaxReportFile {
  return countryCsv('revenue-by-country', report, { sales: (r) => r.sales, corrections: (r) => r.corrections });
}

/** Child elements of `parent`, one per entry (in the entries' order), each holding its text. */
function textChildren(parent: XMLBuilder, children: Record<string, string>): XMLBuilder {
  for (const [name, text] of Object.entries(children)) parent.ele(name).txt(text);
  return parent;
}

/** Namespace of our OSS return document (its structure follows the EU core VAT return message). */
export const OSS_XML_NAMESPACE = 'urn:paymesh:tax:oss-return:1';

/**
 * The Union OSS return as XML, element for element the EU core VAT return message as HMRC's OSS
 * service models it (`CoreVatReturn`), in EUR, followed by the exchange rates it converted at. No
 * member state takes this file as it is: it is the return's content in a stable, machine-readable
 * form for a filing tool or an adviser.
 */
export function vatOssXml(report: VatOssReport, generatedAt: string): TaxReportFile {
  const msid = report.memberStateOfIdentification ?? '';
  const vatId = report.vatId ?? '';
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(OSS_XML_NAMESPACE, 'CoreVatReturn');
  textChildren(root, {
    vatReturnReferenceNumber: `${msid}/${vatId}/Q${report.quarter}.${report.year}`,
    version: '1',
  });
  textChildren(root.ele('traderId'), { vatNumber: vatId, issuedBy: msid });
  textChildren(root.ele('period'), { year: String(report.year), quarter: String(report.quarter) });
  textChildren(root, {
    startDate: report.period.startDate,
    endDate: report.period.endDate,
    submissionDateTime: generatedAt,
    currency: 'EUR',
    totalAmountVatDue: decimal(report.totals.balance),
  });
  const supplies = root.ele('msconSupplies');
  for (const c of report.countries) {
    const s = textChildren(supplies.ele('msconSupply'), {
      msconCountryCode: c.country,
      balanceOfVatDue: decimal(c.balance),
      grandTotalMsidGoods: decimal(c.vatTotal),
      grandTotalMsestGoods: decimal(0),
      correctionsTotal: decimal(c.correctionsTotal),
    });
    const msid = s.ele('msidSupplies');
    for (const x of c.supplies) {
      textChildren(msid.ele('msidSupply'), {
        supplyType: x.supplyType,
        vatRate: percent(x.vatRate),
        vatRateType: x.rateType,
        taxableAmount: decimal(x.taxableAmount),
        vatAmount: decimal(x.vatAmount),
      });
    }
    s.ele('msestSupplies');
    const corrections = s.ele('corrections');
    for (const x of c.corrections) {
      const k = corrections.ele('correction');
      textChildren(k.ele('period'), { year: String(x.year), quarter: String(x.quarter) });
      textChildren(k, { totalVatAmountCorrection: decimal(x.vatAmount) });
    }
  }
  // Not part of the core message: the rates the EUR amounts were converted at, for the record.
  const rates = root.ele('exchangeRates');
  for (const r of report.eurRates) {
    textChildren(rates.ele('exchangeRate'), {
      currency: r.currency,
      rate: String(r.rate),
      rateDate: r.rateDate,
      source: r.source,
    });
  }
  const content = root.end({ prettyPrint: true });
  return {
    filename: `oss-return_${report.year}-Q${report.quarter}.xml`,
    contentType: XML_TYPE,
    content: `${content}\n`,
  };
}

/**
 * The CSV the BZSt online portal (BOP) imports into the OSS-EU return, version 2.0: `#v2.0`, no
 * header row, UTF-8, comma-separated, point decimals. Per country of consumption a record 1, then
 * record 2 (services) and 3 (goods dispatched from Germany) per rate, then record 6 per corrected
 * quarter (previously declared VAT and corrected VAT). Zero bases and amounts are not allowed, so
 * rows that are zero are left out.
 */
export function vatOssElsterCsv(report: VatOssReport): TaxReportFile {
  const lines = ['#v2.0'];
  for (const c of report.countries) {
    const rows: string[] = [];
    for (const s of c.supplies) {
      if (s.taxableAmount === 0 || s.vatAmount === 0) continue;
      const satzart = s.supplyType === 'SERVICES' ? 2 : 3;
      rows.push(
        [satzart, c.country, s.rateType, percent(s.vatRate), decimal(s.taxableAmount), decimal(s.vatAmount)].join(','),
      );
    }
    for (const k of c.corrections) {
      if (k.vatAmount === 0) continue;
      rows.push(
        [6, c.country, k.year, k.quarter, decimal(k.declaredVat), decimal(k.declaredVat + k.vatAmount)].join(','),
      );
    }
    if (rows.length === 0) continue;
    lines.push(`1,${c.country}`, ...rows);
  }
  return {
    filename: `oss-bop_${report.year}-Q${report.quarter}.csv`,
    contentType: CSV_TYPE,
    content: `${lines.join('\n')}\n`,
  };
}
