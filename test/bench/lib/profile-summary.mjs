// Summarises a .cpuprofile (V8 CPU profile): total sampled time and the top self-time frames,
// plus self time grouped by package (node_modules/<pkg>, our workspace package, or node internals).
import { readFileSync } from 'node:fs';

/** Package (or workspace package, or Node module) a script URL belongs to. */
function where(url) {
  if (!url) return '(native/V8)';
  const nm = url.match(/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/);
  if (nm) return nm[1];
  const ws = url.match(/\/(libs|services|sandboxes)\/([^/]+)\//);
  if (ws) return `${ws[1]}/${ws[2]}`;
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:');
  return url.replace(/^file:\/\//, '');
}

/** A frame's short location: its package plus file name and line. */
function location(cf) {
  if (!cf.url) return '(native/V8)';
  const pkg = where(cf.url);
  const file = cf.url.startsWith('node:') ? '' : `/${cf.url.split('/').pop()}`;
  return `${pkg}${file}:${cf.lineNumber + 1}`;
}

/**
 * `window` ({ fromUs, toUs }, CLOCK_MONOTONIC microseconds as from process.hrtime.bigint() / 1000n,
 * the clock V8 stamps samples with on Linux) keeps only the samples of the measured phase.
 */
export function summariseProfile(file, { top = 12, window } = {}) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  // Time per sample: timeDeltas[i] is the gap before sample i.
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const frames = new Map();
  const packages = new Map();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    const cf = n.callFrame;
    if (cf.functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    const key = `${cf.functionName || '(anonymous)'} ${location(cf)}`;
    frames.set(key, (frames.get(key) ?? 0) + us);
    const pkg = cf.url ? where(cf.url) : cf.functionName;
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  }
  const sortTop = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({
        name,
        ms: Math.round(us / 1000),
        pct: Math.round((1000 * us) / Math.max(total, 1)) / 10,
      }));
  return {
    busyMs: Math.round(total / 1000),
    idleMs: Math.round(idle / 1000),
    frames: sortTop(frames),
    packages: sortTop(packages),
  };
}
