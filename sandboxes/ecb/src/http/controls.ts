import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { EcbSandbox } from '../domain/sandbox';

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(
    (d) =>
      !Number.isNaN(Date.parse(`${d}T00:00:00.000Z`)) && new Date(`${d}T00:00:00.000Z`).toISOString().startsWith(d),
    'must be a date that exists',
  );

const setDay = z
  .object({
    rates: z.record(
      z.string().regex(/^[A-Z]{3}$/, 'currency codes are three capital letters'),
      z.number().positive().finite(),
    ),
    replace: z.boolean().default(false),
  })
  .strict();

const outage = z.object({ mode: z.enum(['up', 'down']) }).strict();

/** Thrown for a malformed control request: 400 `{error}`. */
class ControlError extends Error {}

function parse<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, value: unknown, what = 'body'): T {
  const res = schema.safeParse(value ?? {});
  if (res.success) return res.data;
  const issue = res.error.issues[0];
  throw new ControlError(issue ? `${[what, ...issue.path].join('.')}: ${issue.message}` : `invalid ${what}`);
}

/**
 * Test controls under /_sandbox: publish a day with chosen rates, withdraw a day (not published
 * yet), take the files down, and see which files were fetched.
 */
export function controlRoutes(app: FastifyInstance, sandbox: EcbSandbox): void {
  app.setErrorHandler((err: Error, _req, reply: FastifyReply) => {
    if (err instanceof ControlError) return reply.code(400).send({ error: err.message });
    const status = (err as { statusCode?: number }).statusCode;
    return reply
      .code(status !== undefined && status >= 400 && status < 500 ? status : 500)
      .send({ error: err.message });
  });

  app.get<{ Params: { date: string } }>('/rates/:date', async (req) =>
    sandbox.day(parse(day, req.params.date, 'date')),
  );

  app.put<{ Params: { date: string } }>('/rates/:date', async (req) => {
    const date = parse(day, req.params.date, 'date');
    const body = parse(setDay, req.body);
    sandbox.setDay(date, body.rates, body.replace);
    return sandbox.day(date);
  });

  app.delete<{ Params: { date: string } }>('/rates/:date', async (req, reply) => {
    sandbox.hideDay(parse(day, req.params.date, 'date'));
    return reply.code(204).send();
  });

  app.get('/outage', async () => sandbox.outage);

  app.post('/outage', async (req) => {
    sandbox.outage = parse(outage, req.body);
    return sandbox.outage;
  });

  app.get('/requests', async () => sandbox.requests());

  app.post('/reset', async () => {
    sandbox.reset();
    return { reset: true };
  });
}
