import type { FastifyInstance } from 'fastify';
import type { CheckVatRequest, ViesSandbox } from '../domain/sandbox';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const bodyOf = (raw: unknown): CheckVatRequest =>
  raw !== null && typeof raw === 'object' ? (raw as CheckVatRequest) : {};

/** The VIES on-the-Web REST endpoints, mounted under the live service's base path. */
export function restApiRoutes(app: FastifyInstance, sandbox: ViesSandbox): void {
  app.post('/check-vat-number', async (req) => {
    const body = bodyOf(req.body);
    const delay = sandbox.delayFor(typeof body.countryCode === 'string' ? body.countryCode : '');
    if (delay > 0) await sleep(delay);
    return sandbox.checkVatNumber(body);
  });

  app.post('/check-vat-test-service', async (req) => sandbox.checkVatTestService(bodyOf(req.body)));

  app.get('/check-status', async () => sandbox.status());
}
