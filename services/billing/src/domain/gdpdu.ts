import { create } from 'xmlbuilder2';
import { exponentOf } from './datev';

/**
 * The GDPdU (GoBD Z3) tax-audit package: `index.xml` after the tax administration's description
 * standard (DTD `gdpdu-01-08-2002.dtd`, shipped beside it) and the CSV tables it describes.
 * Tables are `VariableLength`: semicolons, CRLF, text in double quotes (quotes doubled), decimal
 * comma without digit grouping, dates `DD.MM.YYYY`, UTF-8 (declared), no header row.
 */

export const GDPDU_DTD = 'gdpdu-01-08-2002.dtd';
export const DATE_FORMAT = 'DD.MM.YYYY';

export type GdpduType = { kind: 'text'; max: number } | { kind: 'number'; accuracy: number } | { kind: 'date' };

export interface GdpduColumn {
  name: string;
  description: string;
  type: GdpduType;
}

export interface GdpduTable {
  /** File name in the zip (the URL of index.xml). */
  file: string;
  name: string;
  description: string;
  /** Leading columns that form the primary key. */
  keyColumns: number;
  columns: GdpduColumn[];
  foreignKeys: { columns: string[]; references: string }[];
}

const text = (name: string, description: string, max: number): GdpduColumn => ({
  name,
  description,
  type: { kind: 'text', max },
});
const money = (name: string, description: string): GdpduColumn => ({
  name,
  description,
  type: { kind: 'number', accuracy: 2 },
});
const date = (name: string, description: string): GdpduColumn => ({ name, description, type: { kind: 'date' } });
const integer = (name: string, description: string): GdpduColumn => ({
  name,
  description,
  type: { kind: 'number', accuracy: 0 },
});

/** Columns that several tables share (a key and the columns that refer to it), defined once. */
const INVOICE_ID = text('RechnungID', 'invoice identifier', 24);
const INVOICE_NUMBER = text('Rechnungsnummer', 'invoice number', 64);
const CLIENT_ID = text('KundenID', 'client identifier', 24);
const CURRENCY = text('Waehrung', 'currency (ISO 4217)', 3);
const TAX_COUNTRY = text('Steuerland', 'member state whose VAT applies', 2);
const TAX_RATE = money('Steuersatz', 'VAT rate in percent');
const TAX_DECISION = text('Steuerfall', 'tax decision of the engine', 40);
/** The net, VAT and gross amounts of a document or line, as `Netto`, `Steuer` and `Brutto`. */
const amounts = (net: string, vat: string, gross: string): GdpduColumn[] => [
  money('Netto', net),
  money('Steuer', vat),
  money('Brutto', gross),
];

export const CLIENTS_TABLE: GdpduTable = {
  file: 'clients.csv',
  name: 'Kunden',
  description: 'Clients (buyers) of the organization created up to the end of the fiscal year',
  keyColumns: 1,
  columns: [
    CLIENT_ID,
    text('Name', 'name', 200),
    text('EMail', 'e-mail address', 254),
    text('Strasse', 'street', 200),
    text('PLZ', 'postal code', 20),
    text('Ort', 'city', 100),
    text('Land', 'country (ISO 3166-1 alpha-2)', 2),
    text('SteuerID', 'VAT ID or other tax identifier', 64),
    text('SteuerIDArt', 'kind of tax identifier (vat, ...)', 20),
    text('Steuerland', 'country the client is taxed in', 2),
    date('AngelegtAm', 'day the client was created (UTC)'),
  ],
  foreignKeys: [],
};

export const INVOICES_TABLE: GdpduTable = {
  file: 'invoices.csv',
  name: 'Rechnungen',
  description: 'Invoices issued in the fiscal year (voided ones included), as issued',
  keyColumns: 1,
  columns: [
    INVOICE_ID,
    INVOICE_NUMBER,
    text('Status', 'issued, partially_paid, paid or void', 20),
    date('Rechnungsdatum', 'issue date'),
    date('Faelligkeit', 'due date'),
    date('LeistungVon', 'first day of the service period'),
    date('LeistungBis', 'last day of the service period'),
    CLIENT_ID,
    text('Kunde', 'buyer name as issued', 200),
    text('KundeSteuerID', 'buyer VAT ID as issued', 64),
    CURRENCY,
    ...amounts('net total', 'VAT total', 'gross total'),
    money('Bezahlt', 'paid less reversed payments'),
    date('StorniertAm', 'day of the void (UTC)'),
  ],
  foreignKeys: [{ columns: [CLIENT_ID.name], references: CLIENTS_TABLE.name }],
};

export const INVOICE_LINES_TABLE: GdpduTable = {
  file: 'invoice_lines.csv',
  name: 'Rechnungspositionen',
  description: 'Lines of the invoices in Rechnungen with their tax as calculated',
  keyColumns: 2,
  columns: [
    INVOICE_ID,
    integer('Position', 'line number, from 1'),
    text('Bezeichnung', 'description', 500),
    text('Art', 'item type', 40),
    integer('Menge', 'quantity'),
    money('Einzelpreis', 'unit price as entered (gross or net per the price mode)'),
    TAX_RATE,
    TAX_DECISION,
    TAX_COUNTRY,
    ...amounts('net amount', 'VAT amount', 'gross amount'),
  ],
  foreignKeys: [{ columns: [INVOICE_ID.name], references: INVOICES_TABLE.name }],
};

export const CREDIT_NOTES_TABLE: GdpduTable = {
  file: 'credit_notes.csv',
  name: 'Gutschriften',
  description: 'Credit notes (corrections of invoices) issued in the fiscal year',
  keyColumns: 1,
  columns: [
    text('GutschriftID', 'credit note identifier', 24),
    text('Gutschriftsnummer', 'credit note number', 64),
    text('Art', 'void, refund or chargeback', 20),
    INVOICE_ID,
    INVOICE_NUMBER,
    date('Datum', 'issue date'),
    CLIENT_ID,
    CURRENCY,
    ...amounts('net total credited', 'VAT credited', 'gross total credited'),
    text('Grund', 'reason', 500),
  ],
  foreignKeys: [{ columns: [CLIENT_ID.name], references: CLIENTS_TABLE.name }],
};

export const PAYMENTS_TABLE: GdpduTable = {
  file: 'payments.csv',
  name: 'Zahlungen',
  description:
    'Payments of invoices and their reversals (refunds, lost disputes) dated in the fiscal year; reversals are negative',
  keyColumns: 1,
  columns: [
    text('ZahlungID', 'payment or reversal identifier', 80),
    text('Art', 'payment, refund or chargeback', 20),
    date('Datum', "day of the payment or reversal (organization's time zone)"),
    INVOICE_ID,
    INVOICE_NUMBER,
    text('TransaktionID', 'payment transaction identifier', 24),
    CURRENCY,
    money('Betrag', 'amount; negative for reversals'),
    text('GutschriftID', 'credit note of a reversal', 24),
  ],
  foreignKeys: [{ columns: [INVOICE_ID.name], references: INVOICES_TABLE.name }],
};

export const TAX_RECORDS_TABLE: GdpduTable = {
  file: 'tax_records.csv',
  name: 'Steuerbuchungen',
  description: 'Tax-record ledger entries with a tax point in the fiscal year, one row per line of an entry',
  keyColumns: 2,
  columns: [
    text('EintragID', 'ledger entry identifier', 24),
    integer('Zeile', 'line of the entry, from 1'),
    text('Quelle', 'transaction, invoice or credit_note', 20),
    text('QuelleID', 'identifier of the source', 24),
    text('Buchungsart', 'sale, reversal or credit', 20),
    text('Erfassung', 'accrual or cash', 10),
    date('Steuerzeitpunkt', 'tax point'),
    CURRENCY,
    TAX_COUNTRY,
    text('Steuercode', 'tax rate code', 40),
    TAX_RATE,
    TAX_DECISION,
    money('Netto', 'net amount (signed like the entry)'),
    money('Steuer', 'VAT amount (signed like the entry)'),
  ],
  foreignKeys: [],
};

export const GDPDU_TABLES: readonly GdpduTable[] = [
  CLIENTS_TABLE,
  INVOICES_TABLE,
  INVOICE_LINES_TABLE,
  CREDIT_NOTES_TABLE,
  PAYMENTS_TABLE,
  TAX_RECORDS_TABLE,
];

/** What index.xml says about the package. */
export interface IndexParams {
  supplier: string;
  location: string;
  comment: string;
  from: string;
  to: string;
}

/** `YYYY-MM-DD` -> `DD.MM.YYYY`. */
export function gdpduDate(isoDate: string | null | undefined): string {
  if (!isoDate) return '';
  return `${isoDate.slice(8, 10)}.${isoDate.slice(5, 7)}.${isoDate.slice(0, 4)}`;
}

/** An amount in minor units with a decimal comma and two decimals, signed. */
export function gdpduMoney(minor: number, currency: string): string {
  const e = exponentOf(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const units = Math.floor(abs / 10 ** e);
  const frac = abs - units * 10 ** e;
  const cents = e >= 2 ? Math.round(frac / 10 ** (e - 2)) : frac * 10 ** (2 - e);
  return `${sign}${units},${String(cents).padStart(2, '0')}`;
}

/** A percent rate with a decimal comma and two decimals. */
export function gdpduRate(rate: number): string {
  return rate.toFixed(2).replace('.', ',');
}

/** A text cell: in double quotes, quotes doubled, line breaks and control characters as spaces, cut to `max`. */
export function gdpduText(value: string | null | undefined, max: number): string {
  if (value === null || value === undefined) return '""';
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return `"${[...clean].slice(0, max).join('').replaceAll('"', '""')}"`;
}

/** One record: cells joined with semicolons, CRLF at the end. */
export function gdpduRecord(cells: readonly string[]): string {
  return `${cells.join(';')}\r\n`;
}

/** index.xml of the package: every table with its columns, types, keys and validity. */
export function indexXml(p: IndexParams, tables: readonly GdpduTable[] = GDPDU_TABLES): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).dtd({ name: 'DataSet', sysID: GDPDU_DTD });
  const ds = doc.ele('DataSet');
  ds.ele('Version').txt('1.0');
  const supplier = ds.ele('DataSupplier');
  supplier.ele('Name').txt(p.supplier);
  supplier.ele('Location').txt(p.location);
  supplier.ele('Comment').txt(p.comment);
  const media = ds.ele('Media');
  media.ele('Name').txt('Paymesh GDPdU export');
  for (const t of tables) {
    const table = media.ele('Table');
    table.ele('URL').txt(t.file);
    table.ele('Name').txt(t.name);
    table.ele('Description').txt(t.description);
    const validity = table.ele('Validity');
    const range = validity.ele('Range');
    range.ele('From').txt(gdpduDate(p.from));
    range.ele('To').txt(gdpduDate(p.to));
    validity.ele('Format').txt(DATE_FORMAT);
    table.ele('UTF8');
    table.ele('DecimalSymbol').txt(',');
    table.ele('DigitGroupingSymbol').txt('.');
    const vl = table.ele('VariableLength');
    vl.ele('ColumnDelimiter').txt(';');
    // RecordDelimiter stays the default, CRLF.
    vl.ele('TextEncapsulator').txt('"');
    t.columns.forEach((c, i) => {
      const col = vl.ele(i < t.keyColumns ? 'VariablePrimaryKey' : 'VariableColumn');
      col.ele('Name').txt(c.name);
      col.ele('Description').txt(c.description);
      if (c.type.kind === 'text') {
        col.ele('AlphaNumeric');
        col.ele('MaxLength').txt(String(c.type.max));
      } else if (c.type.kind === 'number') {
        col.ele('Numeric').ele('Accuracy').txt(String(c.type.accuracy));
      } else {
        col.ele('Date').ele('Format').txt(DATE_FORMAT);
      }
    });
    for (const fk of t.foreignKeys) {
      const f = vl.ele('ForeignKey');
      for (const n of fk.columns) f.ele('Name').txt(n);
      f.ele('References').txt(fk.references);
    }
  }
  return doc.end({ prettyPrint: true });
}
