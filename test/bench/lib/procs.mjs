// Per-process CPU and memory of the mesh, read from /proc (Linux): utime+stime of every service
// process the benchmark's supervisor started, and their resident set size.
import { readFileSync } from 'node:fs';
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
