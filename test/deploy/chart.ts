import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';

export const ROOT = join(__dirname, '..', '..');
export const CHART_DIR = join(ROOT, 'helm', 'paymesh');

const RENDERER_SRC = join(__dirname, 'helm-render', 'main.go');
/** Debian's packaged Go sources (GOPATH mode): sprig and yaml come from golang-*-dev packages. */
const GOPATH = '/usr/share/gocode';
const SPRIG_DIR = join(GOPATH, 'src', 'github.com', 'Masterminds', 'sprig');

/** A Kubernetes object as rendered (plain parsed YAML). */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
}

export interface RenderResult {
  /** Every object from every template (NOTES.txt excluded). */
  manifests: Manifest[];
  notes: string;
}

/** The chart's values.yaml, parsed. */
export function chartValues(): any {
  return parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8'));
}

/** Why the chart cannot be rendered on this machine, or undefined when it can. */
export function rendererUnavailableReason(): string | undefined {
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) return 'no Go toolchain (Debian golang-go)';
  if (!existsSync(SPRIG_DIR)) return 'no sprig sources (Debian golang-github-masterminds-sprig-dev)';
  return undefined;
}

let binary: string | undefined;

/** Builds test/deploy/helm-render once per source version (cached in the temp directory). */
export function buildRenderer(): string {
  if (binary) return binary;
  const hash = createHash('sha256').update(readFileSync(RENDERER_SRC)).digest('hex').slice(0, 16);
  const out = join(tmpdir(), `paymesh-helm-render-${hash}`);
  if (!existsSync(out)) {
    const res = spawnSync('go', ['build', '-o', out, RENDERER_SRC], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOPATH,
        GOFLAGS: '',
        GOCACHE: join(tmpdir(), 'paymesh-go-build-cache'),
      },
    });
    if (res.status !== 0) throw new Error(`building helm-render failed:\n${res.stderr}`);
  }
  binary = out;
  return out;
}

/**
 * Renders the chart like `helm template <release> helm/paymesh -n <namespace> -f ...` and parses
 * every YAML document (`chartDir`: another copy of the chart, e.g. a deliberately broken one). Throws with the renderer's message when a template fails (e.g. `required`).
 */
export function renderChart(
  overrides: object[] = [],
  opts: { release?: string; namespace?: string; chartDir?: string } = {},
): RenderResult {
  const dir = mkdtempSync(join(tmpdir(), 'paymesh-chart-'));
  try {
    const args = [
      '-chart',
      opts.chartDir ?? CHART_DIR,
      '-name',
      opts.release ?? 'paymesh',
      '-namespace',
      opts.namespace ?? 'payments',
    ];
    overrides.forEach((o, i) => {
      const file = join(dir, `override-${i}.yaml`);
      writeFileSync(file, stringify(o));
      args.push('-f', file);
    });
    const res = spawnSync(buildRenderer(), args, { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
    if (res.status !== 0) throw new Error(res.stderr.trim());
    const files: { template: string; content: string }[] = JSON.parse(res.stdout);
    const manifests: Manifest[] = [];
    let notes = '';
    for (const f of files) {
      if (f.template.endsWith('/NOTES.txt')) {
        notes = f.content;
        continue;
      }
      for (const doc of parseAllDocuments(f.content)) {
        if (doc.errors.length > 0) throw new Error(`${f.template}: ${doc.errors[0]!.message}\n${f.content}`);
        const obj = doc.toJS();
        if (obj === null || obj === undefined) continue;
        manifests.push(obj);
      }
    }
    return { manifests, notes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
