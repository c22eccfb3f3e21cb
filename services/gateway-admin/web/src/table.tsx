import type { ReactNode } from 'react';
import { withRecordLink, type RecordLink } from './record-link';
import { Loaded } from './ui';

export interface Column<T> {
  /** Header text; with `srOnly` it is read out but not shown (action columns). */
  header: string;
  cell: (row: T) => ReactNode;
  num?: boolean;
  srOnly?: boolean;
}

interface TableProps<T> {
  rows: readonly T[];
  columns: ReadonlyArray<Column<T> | false>;
  rowKey: (row: T) => string;
  testId?: string;
  /** Shown instead of the table when there are no rows. */
  empty?: string;
  caption?: string;
}

/** A scrollable table of rows; columns given as `false` (not allowed to this role) are left out. */
export function DataTable<T>({ rows, columns, rowKey, testId, empty, caption }: TableProps<T>) {
  const shown = columns.filter((c): c is Column<T> => c !== false);
  if (rows.length === 0 && empty) return <p className="muted">{empty}</p>;
  return (
    <div className="table-wrap">
      <table data-testid={testId}>
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {shown.map((c) => (
              <th key={c.header} scope="col" className={c.num ? 'num' : undefined}>
                {c.srOnly ? <span className="sr-only">{c.header}</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {shown.map((c) => (
                <td key={c.header} className={c.num ? 'num' : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A read of a list (its `items`, keyed by their id) as a table, with the read's loading line or error note. */
export function ListTable<T extends { id: string }>({
  q,
  recordLink,
  columns,
  ...table
}: Omit<TableProps<T>, 'rows' | 'rowKey'> & {
  q: { data?: { items: T[] } | undefined; error: unknown; isPending: boolean; isError: boolean };
  recordLink?: RecordLink<T>;
}) {
  return (
    <Loaded q={q}>
      {(data) => (
        <DataTable rows={data.items} rowKey={(r) => r.id} columns={withRecordLink(recordLink, columns)} {...table} />
      )}
    </Loaded>
  );
}
