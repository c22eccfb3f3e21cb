import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '@paymesh/core';
import { IMPORT_LAYOUTS, rowInputOf } from '../../domain/data-io';
import { oneRowCheck } from './importer';

describe('import rows', () => {
  const clients = IMPORT_LAYOUTS.clients.columns;
  it('reads a one-row record into its create body, or answers the errors of its cells, else of its schema', () => {
    const schema = z.object({ name: z.string().min(2), email: z.string().email().optional() });
    expect(rowInputOf(clients, schema, { row: 4, cells: { name: 'Muster GmbH', email: '' } })).toEqual({
      input: { name: 'Muster GmbH' },
      errors: null,
    });
    const badCell = rowInputOf(IMPORT_LAYOUTS.tax_rates.columns, z.object({}), { row: 5, cells: { percent: 'x' } });
    expect(badCell).toEqual({ input: null, errors: [{ row: 5, field: 'percent', error: expect.any(String) }] });
    expect(rowInputOf(clients, schema, { row: 6, cells: { name: 'M', email: 'nope' } })).toEqual({
      input: null,
      errors: [
        { row: 6, field: 'name', error: expect.any(String) },
        { row: 6, field: 'email', error: expect.any(String) },
      ],
    });
  });
});

describe('one-row importer check', () => {
  const schema = z.object({ code: z.string().min(2), percent: z.number() });
  const check = oneRowCheck(IMPORT_LAYOUTS.tax_rates.columns, schema, (input) => {
    if (input.code === 'NOPE') throw new ValidationError('code: is refused', { field: 'code' });
    if (input.code === 'GONE') throw new NotFoundError('site not found');
    if (input.code === 'BUG') throw new Error('not the row');
    return `${input.code}@${input.percent}`;
  });

  it('prepares each valid row and names the row, column and reason of each invalid one', async () => {
    const out = await check(null, null, [
      { row: 2, cells: { code: 'VAT19', percent: '19' } },
      { row: 3, cells: { code: 'X', percent: '7' } },
      { row: 4, cells: { code: 'VAT7', percent: 'seven' } },
      { row: 5, cells: { code: 'NOPE', percent: '1' } },
      { row: 6, cells: { code: 'GONE', percent: '1' } },
      { row: 7, cells: { code: 'VAT0', percent: '0' } },
    ]);
    expect(out.prepared).toEqual([
      { row: 2, input: 'VAT19@19' },
      { row: 7, input: 'VAT0@0' },
    ]);
    expect(out.errors).toEqual([
      { row: 3, field: 'code', error: expect.any(String) },
      { row: 4, field: 'percent', error: expect.any(String) },
      { row: 5, field: 'code', error: 'is refused' },
      { row: 6, field: null, error: 'site not found' },
    ]);
  });

  it("lets an error that is not the row's fault through", async () => {
    await expect(check(null, null, [{ row: 2, cells: { code: 'BUG', percent: '1' } }])).rejects.toThrow('not the row');
  });
});
