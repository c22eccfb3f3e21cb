import type { ZodIssue, ZodTypeAny, output } from 'zod';
import type { DataImportEntity, DataRowError } from '@paymesh/contracts';

/**
 * CSV columns of the import files and how a row becomes the body the create routes take. Column
 * headers are the field paths of the Admin API's create bodies (`address.city`), so an error names
 * the column the user sees. An empty cell is an absent field.
 */

export type CellKind = 'text' | 'integer' | 'number' | 'boolean' | 'secret' | 'list';

export interface ColumnSpec {
  header: string;
  kind: CellKind;
  /** Value of the template's example row. */
  example: string;
  /** Required (the template says so in the docs; the create schema enforces it). */
  required?: boolean;
}

export interface EntityLayout {
  columns: ColumnSpec[];
  /** Invoices: the column grouping lines into one draft. */
  groupBy?: string;
  /** Invoices: the line columns (`item.<field>`), one line per row. */
  linePrefix?: string;
}

const col = (header: string, kind: CellKind, example: string, required = false): ColumnSpec => ({
  header,
  kind,
  example,
  required,
});

export const IMPORT_LAYOUTS: Readonly<Record<DataImportEntity, EntityLayout>> = {
  clients: {
    columns: [
      col('name', 'text', 'Muster GmbH', true),
      col('email', 'text', 'billing@muster.example'),
      col('phone', 'text', '+49 30 1234567'),
      col('address.street', 'text', 'Hauptstraße 1'),
      col('address.city', 'text', 'Berlin'),
      col('address.postalCode', 'text', '10115'),
      col('address.country', 'text', 'DE'),
      col('taxInfo.taxId', 'secret', 'DE136695976'),
      col('taxInfo.taxIdType', 'text', 'vat'),
      col('taxInfo.taxCountry', 'text', 'DE'),
      col('taxInfo.peppolRoutingAddress.schemeId', 'text', ''),
      col('taxInfo.peppolRoutingAddress.value', 'secret', ''),
      col('taxInfo.peppolRoutingAddress.confirmedByBuyer', 'boolean', ''),
      col('notes', 'text', 'Imported'),
      col('language', 'text', 'de'),
      col('eInvoiceFormat', 'text', 'xrechnung'),
    ],
  },
  invoices: {
    groupBy: 'reference',
    linePrefix: 'item.',
    columns: [
      col('reference', 'text', 'INV-IMPORT-1', true),
      col('siteId', 'text', '0123456789abcdef01234567', true),
      col('clientId', 'text', '0123456789abcdef01234568', true),
      col('currency', 'text', 'EUR', true),
      col('issueDate', 'text', ''),
      col('dueDate', 'text', ''),
      col('paymentTermsDays', 'integer', '14'),
      col('servicePeriod.start', 'text', ''),
      col('servicePeriod.end', 'text', ''),
      col('notes', 'text', ''),
      col('item.description', 'text', 'Consulting, March', true),
      col('item.quantity', 'integer', '2', true),
      col('item.unitPrice', 'integer', '15000', true),
      col('item.amountType', 'text', 'net'),
      col('item.taxRate', 'number', ''),
      col('item.itemType', 'text', 'service', true),
      col('item.category', 'text', ''),
    ],
  },
  tax_rates: {
    columns: [
      col('code', 'text', 'VAT_DE_STANDARD', true),
      col('country', 'text', 'DE', true),
      col('rateType', 'text', 'standard', true),
      col('percent', 'number', '19', true),
      col('categories', 'list', ''),
      col('validFrom', 'text', '2020-01-01', true),
      col('validTo', 'text', ''),
      col('description', 'text', 'Germany, standard rate'),
    ],
  },
};

/** One data row: its spreadsheet row number and its cells by header. */
export interface CsvRow {
  row: number;
  cells: Record<string, string>;
}

/** Problems of the header row (row 1): unknown or repeated columns, required columns missing. */
export function headerErrors(entity: DataImportEntity, header: string[]): DataRowError[] {
  const layout = IMPORT_LAYOUTS[entity];
  const known = new Set(layout.columns.map((c) => c.header));
  const errors: DataRowError[] = [];
  const seen = new Set<string>();
  for (const h of header) {
    if (!known.has(h))
      errors.push({ row: 1, field: h, error: `unknown column "${h}" (columns: ${[...known].join(', ')})` });
    else if (seen.has(h)) errors.push({ row: 1, field: h, error: `column "${h}" appears twice` });
    seen.add(h);
  }
  for (const c of layout.columns)
    if (c.required && !seen.has(c.header))
      errors.push({ row: 1, field: c.header, error: `required column "${c.header}" is missing` });
  return errors;
}

type Converted = { ok: true; value: unknown } | { ok: false; error: string };

function convert(kind: CellKind, raw: string): Converted {
  switch (kind) {
    case 'text':
      return { ok: true, value: raw };
    case 'secret':
      return { ok: true, value: { plaintext: raw } };
    case 'integer':
      return /^-?\d{1,15}$/.test(raw.trim())
        ? { ok: true, value: Number(raw.trim()) }
        : { ok: false, error: 'must be a whole number' };
    case 'number': {
      const n = Number(raw.trim());
      return /^-?\d{1,15}(\.\d{1,10})?$/.test(raw.trim()) && Number.isFinite(n)
        ? { ok: true, value: n }
        : { ok: false, error: 'must be a number (a dot before decimals)' };
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (v === 'true' || v === 'yes' || v === '1') return { ok: true, value: true };
      if (v === 'false' || v === 'no' || v === '0') return { ok: true, value: false };
      return { ok: false, error: 'must be true or false' };
    }
    case 'list':
      return {
        ok: true,
        value: raw
          .split(/[;|]/)
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
      };
  }
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  const leaf = path.at(-1);
  if (leaf === undefined) return;
  let node = target;
  for (const part of path.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[leaf] = value;
}

/**
 * The object a set of cells describes (only non-empty cells; `skip` leaves some columns out) and
 * the cells that are not of their column's kind.
 */
export function objectOfCells(
  columns: ColumnSpec[],
  cells: Record<string, string>,
  row: number,
  strip = '',
): { value: Record<string, unknown>; errors: DataRowError[] } {
  const value: Record<string, unknown> = {};
  const errors: DataRowError[] = [];
  for (const c of columns) {
    const raw = cells[c.header];
    if (raw === undefined || raw.trim() === '') continue;
    const converted = convert(c.kind, raw);
    if (!converted.ok) errors.push({ row, field: c.header, error: converted.error });
    else setPath(value, c.header.slice(strip.length).split('.'), converted.value);
  }
  return { value, errors };
}

/**
 * The column a schema issue is about: the longest header that is a prefix of the issue's path
 * (`taxInfo.taxId.plaintext` -> `taxInfo.taxId`), else the path itself (null for the whole row).
 */
export function columnOfIssue(columns: ColumnSpec[], path: (string | number)[], prefix = ''): string | null {
  if (path.length === 0) return null;
  const dotted = prefix + path.join('.');
  let best: string | null = null;
  for (const c of columns) {
    if ((dotted === c.header || dotted.startsWith(`${c.header}.`)) && (best === null || c.header.length > best.length))
      best = c.header;
  }
  return best ?? dotted;
}

/** Schema issues of a row as row errors. */
export function issuesToErrors(columns: ColumnSpec[], issues: ZodIssue[], row: number): DataRowError[] {
  return issues.map((i) => ({ row, field: columnOfIssue(columns, i.path), error: i.message }));
}

/** A one-row record as its create body: the cells read by the columns, then checked by the schema; else the row's errors. */
export function rowInputOf<S extends ZodTypeAny>(
  columns: ColumnSpec[],
  schema: S,
  r: CsvRow,
): { input: output<S>; errors: null } | { input: null; errors: DataRowError[] } {
  const { value, errors } = objectOfCells(columns, r.cells, r.row);
  if (errors.length > 0) return { input: null, errors };
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { input: null, errors: issuesToErrors(columns, parsed.error.issues, r.row) };
  return { input: parsed.data, errors: null };
}

/** First characters a spreadsheet reads as a formula (or that can start one after a control character). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A cell value safe to open in a spreadsheet: text starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return gets a leading `'`, so it stays text. Numbers of numeric columns are written as
 * numbers (a negative amount keeps its minus); only text is neutralised.
 */
export function safeCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}
