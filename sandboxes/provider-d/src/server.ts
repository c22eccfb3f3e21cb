import { randomBytes } from 'node:crypto';
import { type Clock, createLogger, type Logger, systemClock } from '@paymesh/core';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { defaultPublicUrl, type SandboxConfig } from './config';
import { ALL_OWNERS, AUTH_ALGO, WebhookSender } from './delivery';
import { ApiError, invalidRequest, unauthorized, unprocessable } from './errors';
import { payPageRoutes } from './pay-page';
import { CURRENCIES, minorOf, Sandbox } from './sandbox';

export interface BuildOptions {
  clock?: Clock;
  logger?: Logger;
}

const DAY_MS = 24 * 60 * 60_000;
const CERT_PATH = '/v1/notifications/certs/CERT-sandbox-paymesh';

const moneySchema = z
  .object({ currency_code: z.string().regex(/^[A-Z]{3}$/), value: z.string().max(32) })
  .passthrough();
const orderSchema = z
  .object({
    intent: z.literal('CAPTURE'),
    purchase_units: z
      .array(
        z
          .object({
            reference_id: z.string().min(1).max(256).optional(),
            description: z.string().max(127).optional(),
            custom_id: z.string().max(127).optional(),
            invoice_id: z.string().max(127).optional(),
            amount: moneySchema,
          })
          .passthrough(),
      )
      .length(1),
    application_context: z
      .object({ return_url: z.string().url().optional(), cancel_url: z.string().url().optional() })
      .passthrough()
      .optional(),
  })
  .passthrough();
const verifySchema = z.object({
  auth_algo: z.string(),
  cert_url: z.string(),
  transmission_id: z.string(),
  transmission_sig: z.string(),
  transmission_time: z.string(),
  webhook_id: z.string(),
  webhook_event: z.record(z.unknown()),
});

/**
 * The sandbox HTTP server, not yet listening. Call `listen({ host: config.host, port: config.port })`;
 * `close()` also stops webhook deliveries.
 */
export function buildServer(config: SandboxConfig, options: BuildOptions = {}): FastifyInstance {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ service: 'sandbox-provider-d', level: config.logLevel });
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => `req_${randomBytes(8).toString('hex')}`,
    requestIdHeader: false,
  });

  const publicUrl = (): string => {
    if (config.publicUrl) return config.publicUrl;
    const address = app.server.address();
    return defaultPublicUrl(config.host, address && typeof address === 'object' ? address.port : config.port);
  };

  const sender = new WebhookSender(
    config.webhooks,
    logger.child({ component: 'webhooks' }),
    () => `${publicUrl()}${CERT_PATH}`,
  );
  const sandbox = new Sandbox(clock, publicUrl, (event, endpoints, time, resend) =>
    sender.send(event, endpoints, time, resend),
  );
  /** Stored answers per (app, PayPal-Request-Id): the same request replays, another one is refused. */
  const idempotency = new Map<string, { fingerprint: string; status: number; body: unknown; at: number }>();

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
  });
  app.addHook('onClose', async () => {
    await sender.close();
  });
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ApiError) return reply.code(err.status).send(err.body);
    const status =
      typeof err === 'object' && err !== null && 'statusCode' in err && typeof err.statusCode === 'number'
        ? err.statusCode
        : 500;
    if (status >= 400 && status < 500) {
      return reply
        .code(status)
        .send(invalidRequest('MALFORMED_REQUEST_JSON', err instanceof Error ? err.message : 'bad request').body);
    }
    req.log.error({ err }, 'unhandled error');
    return reply
      .code(500)
      .send(new ApiError(500, 'INTERNAL_SERVER_ERROR', 'An internal server error has occurred.').body);
  });
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .send(
        new ApiError(
          404,
          'NOT_FOUND',
          `No route ${req.method} ${req.url.split('?')[0]}; this sandbox implements a subset of the API (see its README).`,
        ).body,
      ),
  );

  /** The app of a bearer token. */
  const appOf = (req: FastifyRequest): string => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const owner = m?.[1] ? sandbox.ownerOfToken(m[1]) : null;
    if (!owner) throw unauthorized();
    return owner;
  };
  /** Controls take a token optionally; with one, only that app's objects are visible. */
  const optionalApp = (req: FastifyRequest): string | undefined => (req.headers.authorization ? appOf(req) : undefined);

  async function idempotent(
    req: FastifyRequest,
    reply: FastifyReply,
    owner: string,
    fn: () => { status: number; body: unknown },
  ) {
    const key = req.headers['paypal-request-id'];
    if (typeof key !== 'string' || key === '') {
      const res = fn();
      return reply.code(res.status).send(res.body);
    }
    const id = `${owner}\u0000${key}`;
    const fingerprint = `${req.method} ${req.url} ${JSON.stringify(req.body ?? null)}`;
    const hit = idempotency.get(id);
    if (hit && clock.now().getTime() - hit.at < DAY_MS) {
      if (hit.fingerprint !== fingerprint) {
        throw unprocessable(
          'PAYPAL_REQUEST_ID_PREVIOUSLY_USED',
          'The PayPal-Request-Id has already been used for another request.',
        );
      }
      return reply.code(hit.status).send(hit.body);
    }
    const res = fn();
    idempotency.set(id, { fingerprint, status: res.status, body: res.body, at: clock.now().getTime() });
    return reply.code(res.status).send(res.body);
  }

  app.get('/health', async () => ({ status: 'ok' }));

  app.post('/v1/oauth2/token', async (req, reply) => {
    const m = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    const [clientId, secret] = m?.[1] ? splitOnce(Buffer.from(m[1], 'base64').toString('utf8'), ':') : ['', ''];
    const grant = req.body !== null && typeof req.body === 'object' ? Reflect.get(req.body, 'grant_type') : undefined;
    if (grant !== 'client_credentials')
      return reply.code(400).send({ error: 'unsupported_grant_type', error_description: 'Grant Type is NULL' });
    const issued = sandbox.issueToken(clientId, secret);
    if (!issued)
      return reply.code(401).send({ error: 'invalid_client', error_description: 'Client Authentication failed' });
    return {
      scope: 'https://uri.paypal.com/services/payments/payment',
      access_token: issued.token,
      token_type: 'Bearer',
      app_id: `APP-${clientId.slice(0, 8)}`,
      expires_in: issued.expiresIn,
      nonce: randomBytes(8).toString('hex'),
    };
  });

  app.post('/v2/checkout/orders', async (req, reply) => {
    const owner = appOf(req);
    const parsed = orderSchema.safeParse(req.body);
    if (!parsed.success)
      throw invalidRequest(
        'INVALID_PARAMETER_SYNTAX',
        `Request is not well-formed: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`.trim(),
      );
    const [unit] = parsed.data.purchase_units;
    if (!unit) throw invalidRequest('INVALID_PARAMETER_SYNTAX', 'Request is not well-formed: purchase_units');
    if (!CURRENCIES.has(unit.amount.currency_code))
      throw unprocessable(
        'CURRENCY_NOT_SUPPORTED',
        'Currency code is not supported.',
        "/purchase_units/@reference_id=='default'/amount/currency_code",
      );
    const minor = minorOf(unit.amount);
    if (minor === null || minor < 1)
      throw unprocessable(
        'INVALID_PARAMETER_VALUE',
        'The amount value is invalid.',
        "/purchase_units/@reference_id=='default'/amount/value",
      );
    return idempotent(req, reply, owner, () => {
      const ctx = parsed.data.application_context;
      const o = sandbox.createOrder(
        owner,
        {
          reference_id: unit.reference_id ?? 'default',
          description: unit.description,
          custom_id: unit.custom_id,
          invoice_id: unit.invoice_id,
          amount: unit.amount,
        },
        ctx?.return_url ?? null,
        ctx?.cancel_url ?? null,
      );
      return { status: 201, body: sandbox.views.order(o) };
    });
  });

  app.get<{ Params: { id: string } }>('/v2/checkout/orders/:id', async (req) =>
    sandbox.views.order(sandbox.order(req.params.id, appOf(req))),
  );

  app.post<{ Params: { id: string } }>('/v2/checkout/orders/:id/capture', async (req, reply) => {
    const owner = appOf(req);
    const o = sandbox.order(req.params.id, owner);
    return idempotent(req, reply, owner, () => ({ status: 201, body: sandbox.views.order(sandbox.captureOrder(o)) }));
  });

  app.get<{ Params: { id: string } }>('/v2/payments/captures/:id', async (req) =>
    sandbox.views.capture(sandbox.capture(req.params.id, appOf(req))),
  );

  app.post<{ Params: { id: string } }>('/v2/payments/captures/:id/refund', async (req, reply) => {
    const owner = appOf(req);
    const c = sandbox.capture(req.params.id, owner);
    const raw = req.body !== null && typeof req.body === 'object' ? Reflect.get(req.body, 'amount') : undefined;
    let minor: number | null = null;
    if (raw !== undefined) {
      const a = moneySchema.safeParse(raw);
      minor = a.success && a.data.currency_code === c.amount.currency_code ? minorOf(a.data) : null;
      if (minor === null) throw unprocessable('INVALID_PARAMETER_VALUE', 'The refund amount is invalid.', 'amount');
    }
    return idempotent(req, reply, owner, () => ({
      status: 201,
      body: sandbox.views.refund(sandbox.refundCapture(c, minor)),
    }));
  });

  app.get<{ Params: { id: string } }>('/v2/payments/refunds/:id', async (req) =>
    sandbox.views.refund(sandbox.refund(req.params.id, appOf(req))),
  );

  app.post('/v1/notifications/webhooks', async (req, reply) => {
    const owner = appOf(req);
    const body = z
      .object({
        url: z
          .string()
          .url()
          .refine((u) => /^https?:\/\//.test(u)),
        event_types: z.array(z.object({ name: z.string().min(1) })).min(1),
      })
      .safeParse(req.body);
    if (!body.success) throw invalidRequest('INVALID_PARAMETER_SYNTAX', 'url and event_types are required.');
    const e = sandbox.addEndpoint(
      owner,
      body.data.url,
      body.data.event_types.map((t) => t.name),
    );
    return reply.code(201).send({ id: e.id, url: e.url, event_types: e.eventTypes.map((name) => ({ name })) });
  });

  app.delete<{ Params: { id: string } }>('/v1/notifications/webhooks/:id', async (req, reply) => {
    sandbox.deleteEndpoint(sandbox.endpoint(req.params.id, appOf(req)));
    return reply.code(204).send();
  });

  app.post('/v1/notifications/verify-webhook-signature', async (req) => {
    const owner = appOf(req);
    const b = verifySchema.safeParse(req.body);
    if (!b.success)
      throw invalidRequest(
        'MISSING_REQUIRED_PARAMETER',
        `Request is not well-formed: ${b.error.issues[0]?.path.join('.') ?? ''}`,
      );
    const v = b.data;
    let endpointOwned = false;
    try {
      endpointOwned = sandbox.endpoint(v.webhook_id, owner) !== undefined;
    } catch {
      endpointOwned = false;
    }
    const ok =
      endpointOwned &&
      v.auth_algo === AUTH_ALGO &&
      v.cert_url === `${publicUrl()}${CERT_PATH}` &&
      sender.verify(
        v.transmission_id,
        v.transmission_time,
        v.webhook_id,
        JSON.stringify(v.webhook_event),
        v.transmission_sig,
      );
    return { verification_status: ok ? 'SUCCESS' : 'FAILURE' };
  });

  app.get(CERT_PATH, async (_req, reply) => reply.type('application/x-pem-file').send(sender.publicKeyPem()));

  // The sandbox's adjudication call: BUYER_FAVOR / SELLER_FAVOR.
  app.post<{ Params: { id: string } }>('/v1/customer/disputes/:id/adjudicate', async (req) => {
    const d = sandbox.dispute(req.params.id, appOf(req));
    const outcome =
      req.body !== null && typeof req.body === 'object' ? Reflect.get(req.body, 'adjudication_outcome') : undefined;
    if (outcome !== 'BUYER_FAVOR' && outcome !== 'SELLER_FAVOR')
      throw invalidRequest(
        'INVALID_PARAMETER_VALUE',
        'adjudication_outcome must be BUYER_FAVOR or SELLER_FAVOR.',
        'adjudication_outcome',
      );
    return sandbox.views.dispute(sandbox.resolveDispute(d, outcome));
  });

  payPageRoutes(app, sandbox);

  // ---- Sandbox-only controls: what the buyer, the bank or the provider does on its own. ----
  const param = (req: FastifyRequest, name: string): unknown =>
    req.body !== null && typeof req.body === 'object' ? Reflect.get(req.body, name) : undefined;

  app.post<{ Params: { id: string } }>('/_sandbox/orders/:id/approve', async (req) => {
    const o = sandbox.order(req.params.id, optionalApp(req));
    const funding = param(req, 'funding') ?? 'ok';
    if (funding !== 'ok' && funding !== 'declined')
      throw invalidRequest('INVALID_PARAMETER_VALUE', 'funding must be ok or declined.', 'funding');
    return sandbox.views.order(sandbox.approve(o, funding));
  });

  app.post<{ Params: { id: string } }>('/_sandbox/orders/:id/disputes', async (req) => {
    const o = sandbox.order(req.params.id, optionalApp(req));
    if (!o.captureId) throw unprocessable('CAPTURE_NOT_COMPLETED', 'The order has no capture to dispute.');
    const reason = param(req, 'reason') ?? 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED';
    if (typeof reason !== 'string' || !/^[A-Z_]{3,60}$/.test(reason))
      throw invalidRequest('INVALID_PARAMETER_VALUE', 'reason must be a reason code.', 'reason');
    return sandbox.views.dispute(sandbox.openDispute(sandbox.capture(o.captureId), reason));
  });

  app.post<{ Params: { id: string } }>('/_sandbox/disputes/:id/review', async (req) =>
    sandbox.views.dispute(sandbox.reviewDispute(sandbox.dispute(req.params.id, optionalApp(req)))),
  );

  app.post<{ Params: { id: string } }>('/_sandbox/events/:id/resend', async (req) => {
    const e = sandbox.event(req.params.id, optionalApp(req));
    const raw = param(req, 'times') ?? 1;
    const times = typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= 20 ? raw : null;
    if (times === null)
      throw invalidRequest('INVALID_PARAMETER_VALUE', 'times must be an integer from 1 to 20.', 'times');
    const time = param(req, 'transmission_time');
    if (time !== undefined && (typeof time !== 'string' || Number.isNaN(Date.parse(time)))) {
      throw invalidRequest(
        'INVALID_PARAMETER_VALUE',
        'transmission_time must be an ISO timestamp.',
        'transmission_time',
      );
    }
    sandbox.resend(e, times, time);
    return { event_id: e.id, deliveries: times };
  });

  // Loses the deliveries of new events from now on (a lost webhook), for one app (with a token) or
  // for all (without one). The resend control still delivers: a lost webhook arriving late.
  app.post('/_sandbox/webhooks/drop', async (req) => {
    const who = optionalApp(req);
    const enabled = param(req, 'enabled');
    if (typeof enabled !== 'boolean')
      throw unprocessable('INVALID_PARAMETER_VALUE', 'enabled must be true or false.', 'enabled');
    sender.setDropping(who ?? ALL_OWNERS, enabled);
    return { scope: who === undefined ? 'all' : 'app', enabled };
  });

  app.post('/_sandbox/events', async (req) => {
    const owner = appOf(req);
    const type = param(req, 'event_type');
    if (typeof type !== 'string' || !/^[A-Z][A-Z0-9_.-]{2,100}$/.test(type))
      throw invalidRequest('INVALID_PARAMETER_VALUE', 'event_type must be an event type name.', 'event_type');
    const { owner: _o, ...e } = sandbox.custom(owner, type, param(req, 'resource') ?? {});
    return e;
  });

  app.get<{ Querystring: { event_type?: string } }>('/_sandbox/events', async (req) => {
    const events = sandbox
      .listEvents(optionalApp(req))
      .filter((e) => !req.query.event_type || e.event_type === req.query.event_type)
      .map(({ owner: _o, ...e }) => e);
    return { count: events.length, events };
  });

  app.get<{ Querystring: { event?: string } }>('/_sandbox/webhook-calls', async (req) => {
    const calls = sender.list({ owner: optionalApp(req), eventId: req.query.event }).map(({ owner: _o, ...c }) => c);
    return { count: calls.length, calls };
  });

  return app;
}

function splitOnce(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}
