import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { FAULT_CODES } from '../domain/faults';
import type { ViesSandbox } from '../domain/sandbox';
import { VIES_COUNTRY_CODES } from '../domain/seed';

const countryCode = z
  .string()
  .regex(/^[A-Z]{2}$/, 'must be a VIES country code such as DE, EL or XI')
  .refine((c) => VIES_COUNTRY_CODES.has(c), 'must be a VIES country code such as DE, EL or XI');

const company = z
  .object({
    countryCode,
    vatNumber: z
      .string()
      .regex(/^[0-9A-Za-z+*.]{2,12}$/, 'must be 2 to 12 letters, digits, +, * or . (without the country prefix)'),
    name: z.string().min(1).max(200),
    address: z.string().min(1).max(500),
  })
  .strict();

const outage = z
  .object({
    mode: z.enum(['up', 'down', 'slow']),
    delayMs: z.number().int().min(0).max(120_000).default(5000),
    error: z.enum(FAULT_CODES).default('SERVICE_UNAVAILABLE'),
    countryCodes: z.array(countryCode).min(1).nullable().default(null),
  })
  .strict();

/** Thrown for a malformed control request: 400 `{error}`. */
class ControlError extends Error {}

function parse<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, value: unknown): T {
  const res = schema.safeParse(value ?? {});
  if (res.success) return res.data;
  const issue = res.error.issues[0];
  throw new ControlError(issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body');
}

/**
 * Test controls under /_sandbox: what VIES does on its own (registrations, outages) made
 * triggerable, and a log of the checks received so tests can see whether a call reached VIES.
 */
export function controlRoutes(app: FastifyInstance, sandbox: ViesSandbox): void {
  app.setErrorHandler((err: Error, _req, reply: FastifyReply) => {
    if (err instanceof ControlError) return reply.code(400).send({ error: err.message });
    const status = (err as { statusCode?: number }).statusCode;
    return reply
      .code(status !== undefined && status >= 400 && status < 500 ? status : 500)
      .send({ error: err.message });
  });

  app.get('/vat-numbers', async () => ({ data: sandbox.registered() }));

  app.post('/vat-numbers', async (req, reply) => reply.code(201).send(sandbox.register(parse(company, req.body))));

  app.delete<{ Params: { vatId: string } }>('/vat-numbers/:vatId', async (req, reply) => {
    const vatId = req.params.vatId.toUpperCase();
    if (!sandbox.deregister(vatId.slice(0, 2), vatId.slice(2)))
      return reply.code(404).send({ error: `${vatId} is not registered` });
    return reply.code(204).send();
  });

  app.get('/outage', async () => sandbox.outage);

  app.post('/outage', async (req) => {
    sandbox.setOutage(parse(outage, req.body));
    return sandbox.outage;
  });

  app.get<{ Querystring: { vatId?: string } }>('/requests', async (req) => sandbox.requests(req.query.vatId));

  app.post('/reset', async () => {
    sandbox.reset();
    return { reset: true };
  });
}
