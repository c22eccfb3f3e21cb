import { describe, expect, it } from 'vitest';
import { createLogger } from '@paymesh/core';
import { COST_COUNTERS_SIGNAL, reportCostCountersOnSignal, type CostCounters } from './counters';

describe('cost counters', () => {
  it('logs the counters on the signal until told to stop', () => {
    const lines: Array<{ msg: string; costCounters?: CostCounters }> = [];
    const logger = createLogger({
      service: 'counters-test',
      level: 'info',
      destination: { write: (chunk: string) => void lines.push(JSON.parse(chunk)) },
    });
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
});
