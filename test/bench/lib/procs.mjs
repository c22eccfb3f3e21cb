// Per-process CPU and memory of the mesh, read from /proc (Linux): utime+stime of every service
// process the benchmark's supervisor started, the CPU of a process's descendants (Chromium under
// documents), and their resident set size.
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

let clkTck;
/** Clock ticks per second of /proc/<pid>/stat times (usually 100). */
export function clockTicks() {
  if (!clkTck) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces; fields after its closing parenthesis are fixed.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU time (user + system) of a process so far, in milliseconds. */
export function cpuMs(pid) {
  const f = statFields(pid);
  // fields 14 and 15 of /proc/<pid>/stat (utime, stime), 0-based 11 and 12 after the name
  return ((Number(f[11]) + Number(f[12])) * 1000) / clockTicks();
}

/** CPU milliseconds of every process in `pids` ({ name: pid }). */
export function cpuSnapshot(pids) {
  const out = {};
  for (const [name, pid] of Object.entries(pids)) {
    try {
      out[name] = cpuMs(pid);
    } catch {
      out[name] = NaN;
    }
  }
  return out;
}

/** Per-process CPU ms spent between two snapshots. */
export function cpuDelta(before, after) {
  const out = {};
  for (const name of Object.keys(before)) out[name] = after[name] - before[name];
  return out;
}

/** Resident set size of a process in MiB. */
export function rssMiB(pid) {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Every process's parent pid, from /proc/<pid>/stat (processes that end meanwhile are skipped). */
function parentPids() {
  const out = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      out.set(Number(entry), Number(statFields(entry)[1]));
    } catch {
      // ended between the listing and the read
    }
  }
  return out;
}

/** The pids of every descendant of `root` now (children, their children, ...). */
export function descendants(root) {
  const children = new Map();
  for (const [pid, ppid] of parentPids()) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const out = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift();
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * CPU ms the descendants of `root` have used so far, those that ended included: utime+stime of
 * each live descendant, plus cutime+cstime (CPU of children that ended and were waited for) of
 * each live descendant and of `root` itself. A process that ends is counted by the parent that
 * reaps it; only one orphaned to init (never reaped by a descendant of `root`) is missed. Answers
 * `{ ms, processes }` (live descendants now).
 */
export function descendantsCpu(root) {
  const ticks = (f, i) => Number(f[i]) + Number(f[i + 1]);
  let total = 0;
  try {
    total += ticks(statFields(root), 13);
  } catch {
    return { ms: NaN, processes: 0 };
  }
  let processes = 0;
  for (const pid of descendants(root)) {
    try {
      const f = statFields(pid);
      // 0-based 11/12 after the name: utime, stime; 13/14: cutime, cstime
      total += ticks(f, 11) + ticks(f, 13);
      processes += 1;
    } catch {
      // ended meanwhile: its parent's cutime/cstime counts it once reaped
    }
  }
  return { ms: (total * 1000) / clockTicks(), processes };
}
