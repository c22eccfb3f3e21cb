import { describe, expect, it } from 'vitest';
import { createLogger } from '@paymesh/core';
import { backgroundInFlight, COST_COUNTERS_SIGNAL, reportCostCountersOnSignal, trackBackground, type CostCounters } from './counters';

describe('cost counters', () => {
  it('counts a background task until it settles, failed ones too', async () => {
    const before = backgroundInFlight();
    let finish: () => void = () => undefined;
    const ok = trackBackground(new Promise<void>((resolve) => (finish = resolve)));
    const failed = trackBackground(Promise.reject(new Error('boom')));
    expect(backgroundInFlight()).toBe(before + 2);
    await expect(failed).rejects.toThrow('boom');
    expect(backgroundInFlight()).toBe(before + 1);
    finish();
    await ok;
    expect(backgroundInFlight()).toBe(before);
  });

  it('logs the counters on the signal until told to stop', () => {
    const lines: Array<{ msg: string; costCounters?: CostCounters }> = [];
    const logger = createLogger({ service: 'counters-test', level: 'info', destination: { write: (chunk: string) => void lines.push(JSON.parse(chunk)) } });
    const counters: CostCounters = {
      store: { statements: 3, rowsWritten: 1 },
      grpc: { callsMade: 2, callsServed: 1, callsInFlight: 0, byMethod: {} },
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
