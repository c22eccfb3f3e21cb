import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { columnOfIssue, headerErrors, IMPORT_LAYOUTS, issuesToErrors, objectOfCells, safeCell } from './data-io';

describe('CSV cells against formula injection', () => {
  it('prefixes text that a spreadsheet would read as a formula, and nothing else', () => {
    for (const t of ['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\tx', '\rx']) expect(safeCell(t)).toBe(`'${t}`);
    for (const t of ['Muster GmbH', 'a=b', ' =1', '', "'quoted"]) expect(safeCell(t)).toBe(t);
  });
  it('writes numbers, booleans and empty values as they are (a negative amount stays a number)', () => {
    expect(safeCell(-1250)).toBe('-1250');
    expect(safeCell(0)).toBe('0');
    expect(safeCell(true)).toBe('true');
    expect(safeCell(null)).toBe('');
    expect(safeCell(undefined)).toBe('');
  });
});

describe('import rows', () => {
  const clients = IMPORT_LAYOUTS.clients.columns;
  it('builds the create body from non-empty cells, dotted headers as nested fields and secrets as plaintext', () => {
    const { value, errors } = objectOfCells(
      clients,
      {
        name: 'A',
        email: '',
        'address.city': 'Berlin',
        'taxInfo.taxId': 'DE1',
        'taxInfo.peppolRoutingAddress.confirmedByBuyer': 'yes',
      },
      2,
    );
    expect(errors).toEqual([]);
    expect(value).toEqual({
      name: 'A',
      address: { city: 'Berlin' },
      taxInfo: { taxId: { plaintext: 'DE1' }, peppolRoutingAddress: { confirmedByBuyer: true } },
    });
  });
  it('names the cell that is not of its column kind', () => {
    const { errors } = objectOfCells(IMPORT_LAYOUTS.tax_rates.columns, { code: 'X', percent: '19,5' }, 7);
    expect(errors).toEqual([{ row: 7, field: 'percent', error: expect.stringMatching(/number/) }]);
    const items = objectOfCells(
      IMPORT_LAYOUTS.invoices.columns.filter((c) => c.header.startsWith('item.')),
      { 'item.quantity': '2', 'item.description': 'x' },
      3,
      'item.',
    );
    expect(items.value).toEqual({ quantity: 2, description: 'x' });
  });
  it('maps schema issues back to the column the user sees', () => {
    expect(columnOfIssue(clients, ['taxInfo', 'taxId', 'plaintext'])).toBe('taxInfo.taxId');
    expect(columnOfIssue(clients, ['address', 'city'])).toBe('address.city');
    expect(columnOfIssue(clients, [])).toBeNull();
    const parsed = z.object({ email: z.string().email() }).safeParse({ email: 'x' });
    expect(parsed.success).toBe(false);
    if (!parsed.success)
      expect(issuesToErrors(clients, parsed.error.issues, 9)).toEqual([
        { row: 9, field: 'email', error: expect.any(String) },
      ]);
  });
  it('refuses unknown, repeated and missing required columns in the header (row 1)', () => {
    expect(headerErrors('clients', ['name', 'email'])).toEqual([]);
    expect(headerErrors('clients', ['email', 'email', 'nom']).map((e) => [e.row, e.field])).toEqual([
      [1, 'email'],
      [1, 'nom'],
      [1, 'name'],
    ]);
  });
});
