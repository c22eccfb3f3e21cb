import type { ReactNode } from 'react';
import { Link } from '@tanstack/react-router';
import type { Column } from './table';

/** The screens of one record, each at the record's id. */
export type RecordScreen =
  '/invoices/$id' | '/credit-notes/$id' | '/clients/$id' | '/recurring/$id' | '/settings/sites/$id';

/** A list's first column: each row named (`text`) by a link to its own screen `to`, at the row's id. */
export interface RecordLink<T> {
  header: string;
  to: RecordScreen;
  text: (row: T) => ReactNode;
}

/** The columns of a list of records, the link to each record's screen first when there is one. */
export function withRecordLink<T extends { id: string }>(
  link: RecordLink<T> | undefined,
  columns: ReadonlyArray<Column<T> | false>,
): ReadonlyArray<Column<T> | false> {
  if (!link) return columns;
  const { header, to, text } = link;
  const first: Column<T> = {
    header,
    cell: (row) => (
      <Link to={to} params={{ id: row.id }}>
        {text(row)}
      </Link>
    ),
  };
  return [first, ...columns];
}
