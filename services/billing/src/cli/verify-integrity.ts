import { readFileSync } from 'node:fs';
import { documentIntegrityExport } from '@paymesh/contracts';
import { verifyExport, type IntegrityExport } from '../domain/document-chain';

/**
 * `pnpm verify-integrity <export.json>`: verifies an export of `GET /documents/integrity/export`
 * offline (no service, no store, no keys): every chain entry's digest, the links between entries,
 * and each document's content against its latest recorded snapshot. Prints the result; exits 0
 * when intact, 1 naming the first broken link, 2 when the file cannot be read.
 */
function main(argv: string[]): number {
  const file = argv[0];
  if (!file || argv.length > 1) {
    process.stderr.write('usage: pnpm verify-integrity <export.json>\n');
    return 2;
  }
  let data: IntegrityExport;
  try {
    const parsed = documentIntegrityExport.parse(JSON.parse(readFileSync(file, 'utf8')));
    data = { ...parsed, documents: parsed.documents.map((d) => ({ ...d, content: d.content })) };
  } catch (err) {
    process.stderr.write(
      `${file}: not a document integrity export: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 2;
  }
  const report = verifyExport(data);
  const where = `organization ${data.organizationId} (${data.mode}), exported ${data.exportedAt}`;
  if (report.ok) {
    process.stdout.write(`intact: ${report.entries} chain entries, ${report.documents} documents verified; ${where}\n`);
    return 0;
  }
  const b = report.firstBroken;
  if (!b) throw new Error('a chain that is not intact names its first broken link');
  process.stdout.write(
    `BROKEN at ${b.series} chain entry ${b.seq} (${b.type} ${b.number}, document ${b.documentId}): ${b.reason}: ${b.detail}; ${where}\n`,
  );
  return 1;
}

process.exitCode = main(process.argv.slice(2));
