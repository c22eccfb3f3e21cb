import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../deploy/local/supervisor.mjs';

const run = promisify(execFile);
/** The official e-invoice validation kit, called in place beside the repository (never copied into it). */
export const EINVOICE_KIT = join(ROOT, '../shared/einvoice/validate.mjs');

export interface EInvoiceVerdict {
  file: string;
  valid: boolean;
  /** XSD errors and fatal Schematron findings, one line each. */
  fatal: string[];
}

/**
 * Runs the kit with one profile (`xrechnung-ubl`, `peppol-ubl`, ...) over files; answers each
 * file's verdict. A missing kit or one that cannot run throws: a check that needs the tool fails
 * without it.
 */
export async function validateEInvoices(profile: string, files: string[]): Promise<EInvoiceVerdict[]> {
  const stdout = await run(process.execPath, [EINVOICE_KIT, '-p', profile, '--json', ...files], {
    maxBuffer: 32 * 1024 * 1024,
  }).then(
    (r) => r.stdout,
    (err: { code?: number; stdout?: string; stderr?: string }) => {
      if (err.code === 1 && err.stdout) return err.stdout;
      throw new Error(`validate.mjs: ${err.stderr ?? ''}`);
    },
  );
  const { results } = JSON.parse(stdout) as {
    results: {
      file: string;
      valid: boolean;
      xsd: { valid: boolean; errors: { message: string }[] };
      schematron: { failed: { id: string; flag: string; text: string }[] }[];
    }[];
  };
  if (results.length !== files.length)
    throw new Error(`validate.mjs answered ${results.length} of ${files.length} files`);
  return results.map((r) => ({
    file: r.file,
    valid: r.valid,
    fatal: [
      ...r.xsd.errors.map((e) => `XSD ${e.message}`),
      ...r.schematron.flatMap((s) => s.failed.filter((f) => f.flag === 'fatal').map((f) => `${f.id} ${f.text}`)),
    ],
  }));
}
