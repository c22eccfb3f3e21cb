import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EInvoiceFormat } from '@paymesh/contracts';
import { einvoiceXml } from '../src/app/render-einvoice';
import { checkEInvoice } from '../src/einvoice/check';
import { MATRIX } from './einvoice-fixtures';

const run = promisify(execFile);
/** The official validation kit, called in place (`../shared/einvoice` beside the repository). */
export const KIT = resolve(__dirname, '../../../../shared/einvoice/validate.mjs');

/** Runs the kit on files with one profile; answers its JSON results. */
export async function validateWithKit(
  profile: string,
  files: string[],
): Promise<
  {
    file: string;
    valid: boolean;
    counts: { fatal: number };
    xsd: unknown;
    schematron: { ruleset: string; failed: { id: string; flag: string; text: string }[] }[];
  }[]
> {
  const out = await run(process.execPath, [KIT, '-p', profile, '--json', ...files], {
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    (r) => r.stdout,
    (err: { stdout?: string; stderr?: string; code?: number }) => {
      if (err.code === 1 && err.stdout) return err.stdout;
      throw new Error(`validate.mjs failed: ${err.stderr ?? ''}`);
    },
  );
  const parsed = JSON.parse(out) as { results: never[] };
  return parsed.results;
}

const PROFILE: Record<EInvoiceFormat, string> = {
  xrechnung: 'xrechnung-ubl',
  peppol: 'peppol-ubl',
  zugferd: 'facturx-cii',
};

describe('e-invoice XML of the test matrix passes the official validation artefacts', () => {
  let dir: string;
  beforeAll(async () => {
    // EINVOICE_OUT keeps the files for a look (node ../shared/einvoice/validate.mjs -p ... <dir>/*.xml).
    dir = process.env.EINVOICE_OUT ?? (await mkdtemp(join(tmpdir(), 'einvoice-')));
  });
  afterAll(async () => {
    if (!process.env.EINVOICE_OUT) await rm(dir, { recursive: true, force: true });
  });

  it('finds the kit', () => {
    expect(existsSync(KIT), KIT).toBe(true);
  });

  for (const format of ['xrechnung', 'peppol', 'zugferd'] as const) {
    it(`${format}: every document of the matrix, zero fatal findings, and our own check agrees`, async () => {
      const files: string[] = [];
      for (const [name, document] of Object.entries(MATRIX)) {
        const { xml, specification } = einvoiceXml({ format, document });
        const report = checkEInvoice(document, format, xml, specification, new Date());
        expect(
          report.findings.filter((f) => f.severity === 'error'),
          `${format} ${name}`,
        ).toEqual([]);
        const file = join(dir, `${format}-${name}.xml`);
        await writeFile(file, xml);
        files.push(file);
      }
      const results = await validateWithKit(PROFILE[format], files);
      expect(results).toHaveLength(files.length);
      const failed = results
        .filter((r) => !r.valid)
        .map((r) => ({
          file: r.file,
          xsd: r.xsd,
          fatal: r.schematron.flatMap((s) =>
            s.failed.filter((f) => f.flag === 'fatal').map((f) => `${f.id}: ${f.text}`),
          ),
        }));
      expect(failed).toEqual([]);
    });
  }
});
