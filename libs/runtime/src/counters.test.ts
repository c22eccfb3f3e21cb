import { describe, expect, it } from 'vitest';
import { createLogger } from '@paymesh/core';
import { COST_COUNTERS_SIGNAL, reportCostCountersOnSignal, type CostCounters } from './counters';

/** A logger at `level` whose lines are kept, parsed. */
function capturingLogger(level: 'info' | 'warn') {
  const lines: Array<{ msg: string; costCounters?: CostCounters }> = [];
  const logger = createLogger({
    service: 'counters-test',
    level,
    destination: { write: (chunk: string) => void lines.push(JSON.parse(chunk)) },
  });
  return { logger, lines };
}

describe('cost counters', () => {
  it('logs the counters on the signal until told to stop', () => {
    const { logger, lines } = capturingLogger('info');
    const counters: CostCounters = {
      store: { statements: 3, rowsWritten: 1 },
      grpc: { callsMade: 2, callsServed: 1, callsInFlight: 0, byMethod: {} },
      grpcServing: 0,
      bus: { published: 1, duplicates: 0, consumed: 1, acked: 1, naked: 0, terminated: 0, handling: 0, bySubject: {} },
      relay: { published: 1, busy: false },
      background: 0,
    };
    const stop = reportCostCountersOnSignal(logger, () => counters);
    process.emit(COST_COUNTERS_SIGNAL);
    stop();
    process.emit(COST_COUNTERS_SIGNAL);
    expect(lines.filter((l) => l.msg === 'cost counters').map((l) => l.costCounters)).toEqual([counters]);
  });

  it('logs them at any log level: the line is asked for', () => {
    const { logger, lines } = capturingLogger('warn');
    const counters: CostCounters = {
      store: { statements: 5, rowsWritten: 2 },
      grpc: { callsMade: 0, callsServed: 0, callsInFlight: 0, byMethod: {} },
      grpcServing: 0,
      bus: { published: 0, duplicates: 0, consumed: 0, acked: 0, naked: 0, terminated: 0, handling: 0, bySubject: {} },
      relay: { published: 0, busy: false },
      background: 0,
    };
    const stop = reportCostCountersOnSignal(logger, () => counters);
    logger.info('not written at warn');
    process.emit(COST_COUNTERS_SIGNAL);
    stop();
    expect(lines.map((l) => l.msg)).toEqual(['cost counters']);
    expect(lines[0]?.costCounters).toEqual(counters);
  });
});
