import { describe, expect, it } from 'vitest';
import { runDependencyChecks } from './health';

describe('deep health', () => {
  it('is down only when a critical dependency is down, degraded for others', async () => {
    const ok = async () => undefined;
    const fail = async () => {
      throw new Error('connection refused');
    };
    expect((await runDependencyChecks([{ name: 'datastore', critical: true, check: ok }])).status).toBe('ok');
    const degraded = await runDependencyChecks([
      { name: 'datastore', critical: true, check: ok },
      { name: 'nats', critical: false, check: fail },
    ]);
    expect(degraded.status).toBe('degraded');
    expect(degraded.checks.nats).toMatchObject({ status: 'down', error: 'connection refused' });
    const down = await runDependencyChecks([{ name: 'datastore', critical: true, check: fail }]);
    expect(down.status).toBe('down');
  });

  it('times out a hanging check instead of hanging the endpoint', async () => {
    const started = Date.now();
    const res = await runDependencyChecks([
      { name: 'datastore', critical: true, timeoutMs: 100, check: () => new Promise(() => undefined) },
    ]);
    expect(res.status).toBe('down');
    expect(res.checks.datastore?.error).toMatch(/100 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
