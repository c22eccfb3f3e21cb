// Preloaded into mesh processes by `pnpm bench --profile` (NODE_OPTIONS=--import ...), because
// Node refuses --cpu-prof in NODE_OPTIONS and the supervisor owns the command line. SIGUSR2 starts
// the V8 CPU profiler, the next SIGUSR2 (or exit) writes <BENCH_CPU_PROF_DIR>/<service>.cpuprofile,
// the same format `node --cpu-prof` writes, so only the measured phase is profiled.
import inspector from 'node:inspector';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  let running = false;
  const name = process.env.SERVICE_NAME || String(process.pid);
  const stop = () => {
    if (!running) return;
    running = false;
    // A same-thread inspector session answers synchronously, so this also works in 'exit'.
    session.post('Profiler.stop', (err, res) => {
      if (err || !res) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(res.profile));
    });
  };
  process.on('SIGUSR2', () => {
    if (running) return stop();
    running = true;
    session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start')));
  });
  process.on('exit', stop);
}
