import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { create } from 'xmlbuilder2';

/**
 * Checks of a GDPdU package: `index.xml` validated against the DTD shipped in the package with a
 * validating parser (xmllint from Debian's libxml2-utils; a missing xmllint is a failure, not a
 * skip), then every table it describes read back by that description: column count, Numeric
 * columns with their Accuracy and the decimal symbol, Date columns in their Format, AlphaNumeric
 * within MaxLength, records ending with CRLF.
 */

export const DTD_NAME = 'gdpdu-01-08-2002.dtd';

/** xmllint's verdict on index.xml against the DTD beside it (`--valid` follows the DOCTYPE). */
export function xmllintValid(indexXml: Buffer, dtd: Buffer): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gdpdu-'));
  try {
    writeFileSync(join(dir, 'index.xml'), indexXml);
    writeFileSync(join(dir, DTD_NAME), dtd);
    const res = spawnSync('xmllint', ['--noout', '--valid', '--nonet', 'index.xml'], { cwd: dir, encoding: 'utf8' });
    if (res.error) return { ok: false, output: `xmllint could not run: ${res.error.message} (install libxml2-utils)` };
    return { ok: res.status === 0, output: `${res.stdout}${res.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface DescribedColumn {
  name: string;
  type: 'AlphaNumeric' | 'Numeric' | 'Date';
  accuracy: number;
  maxLength: number | null;
  format: string | null;
}

export interface DescribedTable {
  url: string;
  name: string;
  utf8: boolean;
  decimalSymbol: string;
  columns: DescribedColumn[];
}

type Node = Record<string, unknown>;
const many = (v: unknown): Node[] => (v === undefined ? [] : Array.isArray(v) ? (v as Node[]) : [v as Node]);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : String(v));

/** The tables index.xml describes. */
export function describedTables(indexXml: Buffer): DescribedTable[] {
  const doc = create(indexXml.toString('utf8')).end({ format: 'object' }) as Node;
  const ds = doc.DataSet as Node;
  return many(ds.Media).flatMap((m) =>
    many(m.Table).map((t) => {
      const vl = t.VariableLength as Node;
      const cols = [...many(vl.VariablePrimaryKey), ...many(vl.VariableColumn)];
      return {
        url: str(t.URL),
        name: str(t.Name),
        utf8: 'UTF8' in t,
        decimalSymbol: str(t.DecimalSymbol) || ',',
        columns: cols.map((c): DescribedColumn => {
          if ('Numeric' in c) {
            const n = (c.Numeric ?? {}) as Node;
            return {
              name: str(c.Name),
              type: 'Numeric',
              accuracy: Number(str(n.Accuracy) || '0'),
              maxLength: null,
              format: null,
            };
          }
          if ('Date' in c) {
            const d = (c.Date ?? {}) as Node;
            return {
              name: str(c.Name),
              type: 'Date',
              accuracy: 0,
              maxLength: null,
              format: str(d.Format) || 'DD.MM.YYYY',
            };
          }
          return {
            name: str(c.Name),
            type: 'AlphaNumeric',
            accuracy: 0,
            maxLength: c.MaxLength === undefined ? null : Number(str(c.MaxLength)),
            format: null,
          };
        }),
      };
    }),
  );
}

/** Every violation of a table's description in its file (the primary keys come first, as index.xml orders them). */
export function checkTable(t: DescribedTable, bytes: Buffer): { problems: string[]; rows: string[][] } {
  const problems: string[] = [];
  const text = bytes.toString(t.utf8 ? 'utf8' : 'latin1');
  if (text.length > 0 && !text.endsWith('\r\n')) problems.push(`${t.url}: the last record does not end with CRLF`);
  if (/[^\r]\n/.test(text)) problems.push(`${t.url}: a record ends with LF only`);
  let rows: string[][] = [];
  try {
    rows = parse(text, { delimiter: ';', quote: '"', record_delimiter: '\r\n', relax_column_count: true });
  } catch (err) {
    problems.push(`${t.url}: not readable as described: ${(err as Error).message}`);
  }
  const dec = t.decimalSymbol.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  rows.forEach((r, i) => {
    const p = (m: string) => problems.push(`${t.url} record ${i + 1}: ${m}`);
    if (r.length !== t.columns.length) p(`${r.length} fields, described ${t.columns.length}`);
    t.columns.forEach((c, j) => {
      const v = r[j] ?? '';
      if (v === '') return;
      if (c.type === 'Numeric') {
        const re = c.accuracy > 0 ? new RegExp(`^-?\\d+${dec}\\d{${c.accuracy}}$`) : /^-?\d+$/;
        if (!re.test(v)) p(`${c.name} "${v}" is not Numeric with ${c.accuracy} decimals`);
      } else if (c.type === 'Date') {
        if (c.format !== 'DD.MM.YYYY') p(`${c.name}: unexpected format ${c.format}`);
        const m = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(v);
        const ok =
          m &&
          (() => {
            const d = new Date(Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1])));
            return d.getUTCDate() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1;
          })();
        if (!ok) p(`${c.name} "${v}" is not a date DD.MM.YYYY`);
      } else if (c.maxLength !== null && [...v].length > c.maxLength) {
        p(`${c.name} longer than ${c.maxLength}`);
      }
    });
  });
  return { problems, rows };
}
