import { ConflictError, ErrorCode } from '@paymesh/core';
import { invoiceCreate, type DataRowError, type InvoiceCreate } from '@paymesh/contracts';
import { IMPORT_LAYOUTS, issuesToErrors, objectOfCells, type CsvRow } from '../../domain/data-io';
import type { InvoiceDoc } from '../../domain/invoice';
import { INVOICES } from '../../store/collections';
import { draftFields, newDraft } from '../draft-invoice';
import { importKeyOf, rowErrorOf, type Importer, type Checked } from './importer';

/** Invoices (drafts): the rows of one `reference` are the lines of one draft. */
function invoiceGroups(rows: CsvRow[]): CsvRow[][] {
  const groups: CsvRow[][] = [];
  for (const r of rows) {
    const last = groups[groups.length - 1];
    if (last && last[0]?.cells.reference === r.cells.reference) last.push(r);
    else groups.push([r]);
  }
  return groups;
}

export const invoiceImporter: Importer<InvoiceCreate> = {
  async check(deps, key, rows) {
    const { columns } = IMPORT_LAYOUTS.invoices;
    const head = columns.filter((c) => !c.header.startsWith('item.') && c.header !== 'reference');
    const line = columns.filter((c) => c.header.startsWith('item.'));
    const out: Checked<InvoiceCreate> = { prepared: [], errors: [] };
    for (const group of invoiceGroups(rows)) {
      const [first] = group;
      if (!first) continue;
      if (!first.cells.reference?.trim()) {
        for (const r of group)
          out.errors.push({
            row: r.row,
            field: 'reference',
            error: 'required: the rows of one invoice share a reference',
          });
        continue;
      }
      const errors: DataRowError[] = [];
      const draft = objectOfCells(head, first.cells, first.row);
      errors.push(...draft.errors);
      // Invoice columns are given on the first row of a reference; later rows leave them empty or repeat them.
      for (const r of group.slice(1)) {
        for (const c of head) {
          const v = r.cells[c.header]?.trim() ?? '';
          if (v !== '' && v !== (first.cells[c.header]?.trim() ?? ''))
            errors.push({
              row: r.row,
              field: c.header,
              error: `differs from row ${first.row}, the first row of reference ${first.cells.reference}`,
            });
        }
      }
      const items = group.map((r) => {
        const item = objectOfCells(line, r.cells, r.row, 'item.');
        errors.push(...item.errors);
        return item.value;
      });
      if (errors.length > 0) {
        out.errors.push(...errors);
        continue;
      }
      const parsed = invoiceCreate.safeParse({ ...draft.value, items });
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const [top, index, ...rest] = issue.path;
          if (top === 'items' && typeof index === 'number' && group[index]) {
            out.errors.push({
              row: group[index].row,
              field: rest.length ? `item.${rest.join('.')}` : 'item',
              error: issue.message,
            });
          } else {
            out.errors.push(...issuesToErrors(columns, [issue], first.row));
          }
        }
        continue;
      }
      try {
        // The create route's own checks: the site and the client exist, the tax engine prices the lines.
        await draftFields(deps, key, parsed.data);
        out.prepared.push({ row: first.row, input: parsed.data });
      } catch (err) {
        out.errors.push(rowErrorOf(err, first.row));
      }
    }
    return out;
  },
  async write(deps, key, ctx, records) {
    const invoices = deps.store.collection<InvoiceDoc & { importKey?: string }>(INVOICES);
    const keys = records.map((r) => importKeyOf(ctx.digest, r.row));
    const seen = await invoices.find(
      { organizationId: key.organizationId, mode: key.mode, importKey: { $in: keys } },
      { limit: keys.length },
    );
    const done = new Set(seen.items.map((d) => d.importKey));
    let created = 0;
    for (const r of records) {
      const importKey = importKeyOf(ctx.digest, r.row);
      if (done.has(importKey)) continue;
      const fields = await draftFields(deps, key, r.input);
      const now = deps.clock.now().toISOString();
      try {
        await invoices.insert(newDraft(key, now, { ...fields, importKey }));
        created++;
      } catch (err) {
        // Written meanwhile by the same file uploaded again: that draft is this row's.
        if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) continue;
        throw err;
      }
    }
    return [created, records.length - created];
  },
};
