import type { FastifyInstance } from 'fastify';

export interface DependencyCheck {
  name: string;
  /** A critical dependency that is down makes the deep check answer 503. */
  critical: boolean;
  check: () => Promise<void>;
  timeoutMs?: number;
}

export interface DependencyReport {
  status: 'up' | 'down';
  critical: boolean;
  latencyMs: number;
  error?: string;
}

async function runCheck(c: DependencyCheck): Promise<DependencyReport> {
  const started = Date.now();
  const timeoutMs = c.timeoutMs ?? 2000;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      c.check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { status: 'up', critical: c.critical, latencyMs: Date.now() - started };
  } catch (err) {
    return {
      status: 'down',
      critical: c.critical,
      latencyMs: Date.now() - started,
      error: err instanceof Error ? err.message : String(err),
    };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Runs all checks in parallel; the overall status is 'down' when any critical one is down. */
export async function runDependencyChecks(
  checks: DependencyCheck[],
): Promise<{ status: 'ok' | 'degraded' | 'down'; checks: Record<string, DependencyReport> }> {
  const reports = await Promise.all(checks.map(runCheck));
  const out: Record<string, DependencyReport> = {};
  checks.forEach((c, i) => {
    const r = reports[i];
    if (r) out[c.name] = r;
  });
  const criticalDown = reports.some((r) => r.critical && r.status === 'down');
  const anyDown = reports.some((r) => r.status === 'down');
  return { status: criticalDown ? 'down' : anyDown ? 'degraded' : 'ok', checks: out };
}

/** `GET /health` (shallow, 200 while the process runs) and `GET /internal/health` (deep). */
export function registerHealthRoutes(app: FastifyInstance, service: string, checks: () => DependencyCheck[]): void {
  app.get('/health', { config: { rateLimit: false } }, async () => ({ status: 'ok', service }));
  app.get('/internal/health', { config: { rateLimit: false } }, async (_req, reply) => {
    const result = await runDependencyChecks(checks());
    reply.status(result.status === 'down' ? 503 : 200);
    return { service, ...result };
  });
}
