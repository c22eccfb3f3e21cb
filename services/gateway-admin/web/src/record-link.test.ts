import { isValidElement } from 'react';
import { describe, expect, it } from 'vitest';
import { withRecordLink } from './record-link';
import type { Column } from './table';

interface Row {
  id: string;
  name: string;
  email: string;
}

const row: Row = { id: '65a1b2c3d4e5f60718293a4b', name: 'Acme GmbH', email: 'billing@acme.example' };
const email: Column<Row> = { header: 'E-mail', cell: (r) => r.email };

describe('withRecordLink', () => {
  it('leaves the columns as they are without a record link', () => {
    const columns = [email, false] as const;
    expect(withRecordLink<Row>(undefined, columns)).toBe(columns);
  });

  it("puts the link to each row's own screen first, named by the row", () => {
    const columns = withRecordLink<Row>({ header: 'Name', to: '/clients/$id', text: (r) => r.name }, [email, false]);
    expect(columns.map((c) => c && c.header)).toEqual(['Name', 'E-mail', false]);
    const first = columns[0];
    if (!first) throw new Error('no first column');
    const cell = first.cell(row);
    if (!isValidElement<{ to: string; params: { id: string }; children: unknown }>(cell)) {
      throw new Error('the cell is not an element');
    }
    expect(cell.props.to).toBe('/clients/$id');
    expect(cell.props.params).toEqual({ id: row.id });
    expect(cell.props.children).toBe('Acme GmbH');
  });
});
