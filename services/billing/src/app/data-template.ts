import { stringify } from 'csv-stringify/sync';
import type { DataImportEntity, DataTemplate } from '@paymesh/contracts';
import { IMPORT_LAYOUTS } from '../domain/data-io';

/** The CSV template of an import: the header row and one example row (UTF-8, CRLF line ends). */
export function dataTemplate(entity: DataImportEntity): DataTemplate {
  const { columns } = IMPORT_LAYOUTS[entity];
  const csv = stringify([columns.map((c) => c.header), columns.map((c) => c.example)], { record_delimiter: 'windows' });
  return { filename: `${entity}-import-template.csv`, csv };
}
