import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, unauthorized, unprocessable } from '../errors';
import { isCurrency, minorOf } from '../domain/money';
import type { Sandbox } from '../domain/sandbox';
import { chargebackView, listView, paymentView, refundView } from '../domain/views';

export interface ApiDeps {
  sandbox: Sandbox;
  publicUrl: () => string;
  idempotency: IdempotencyStore;
}

/** An API key is an account: `test_…` or `live_…` (the mode of what it creates). */
const API_KEY = /^(test|live)_[A-Za-z0-9]{20,100}$/;

export function apiKeyOf(req: FastifyRequest): string {
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  if (!m?.[1] || !API_KEY.test(m[1])) throw unauthorized();
  return m[1];
}

const DAY_MS = 24 * 60 * 60_000;

/** Stored answers per (account, Idempotency-Key): the same request replays, another one is refused. */
export class IdempotencyStore {
  private readonly entries = new Map<string, { fingerprint: string; status: number; body: unknown; at: number }>();

  constructor(private readonly now: () => number) {}

  async run(
    req: FastifyRequest,
    reply: FastifyReply,
    owner: string,
    fn: () => { status: number; body: unknown },
  ): Promise<unknown> {
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || key === '') {
      const res = fn();
      return reply.code(res.status).send(res.body);
    }
    const id = `${owner}\u0000${key}`;
    const fingerprint = `${req.method} ${req.url} ${JSON.stringify(req.body ?? null)}`;
    const hit = this.entries.get(id);
    if (hit && this.now() - hit.at < DAY_MS) {
      if (hit.fingerprint !== fingerprint) {
        // NOTE: the real provider's answer to a reused key with other parameters is not documented; 409 here.
        throw new ApiError(
          409,
          'Conflict',
          'The idempotency key was already used for a request with other parameters.',
        );
      }
      return reply.code(hit.status).header('idempotent-replayed', 'true').send(hit.body);
    }
    // A refused request throws before anything is stored, so a corrected retry with the same key goes through.
    const res = fn();
    this.entries.set(id, { fingerprint, status: res.status, body: res.body, at: this.now() });
    return reply.code(res.status).send(res.body);
  }
}

function field(body: unknown, name: string): unknown {
  if (body === null || typeof body !== 'object' || !Object.hasOwn(body, name)) return undefined;
  const value: unknown = Reflect.get(body, name);
  return value;
}

function amountParam(body: unknown, currency?: string): { minor: number; currency: string } {
  const a = field(body, 'amount');
  const c = field(a, 'currency');
  const v = field(a, 'value');
  if (a === undefined) throw unprocessable('The amount is required.', 'amount');
  if (typeof c !== 'string' || !isCurrency(c))
    throw unprocessable('The amount contains an invalid currency.', 'amount.currency');
  if (currency !== undefined && c !== currency)
    throw unprocessable(`The currency must be ${currency}.`, 'amount.currency');
  const minor = typeof v === 'string' ? minorOf({ currency: c, value: v }) : null;
  if (minor === null || minor < 1) throw unprocessable('The amount contains an invalid value.', 'amount.value');
  return { minor, currency: c };
}

function urlParam(body: unknown, name: string, required: boolean): string | null {
  const v = field(body, name);
  if (v === undefined || v === null || v === '') {
    if (required) throw unprocessable(`The ${name === 'redirectUrl' ? 'redirect URL' : name} is missing.`, name);
    return null;
  }
  if (typeof v !== 'string' || !/^https?:\/\/[^\s]+$/.test(v) || !URL.canParse(v))
    throw unprocessable(`The ${name} is invalid.`, name);
  return v;
}

function metadataParam(body: unknown): unknown {
  const m = field(body, 'metadata') ?? null;
  if (JSON.stringify(m).length > 1024)
    throw unprocessable('The metadata is too large (1024 bytes at most).', 'metadata');
  return m;
}

/** The v2 payments API subset the platform calls (JSON in, `application/hal+json` out). */
export function apiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { sandbox } = deps;
  const base = () => deps.publicUrl();

  app.post('/v2/payments', async (req, reply) => {
    const owner = apiKeyOf(req);
    return deps.idempotency.run(req, reply, owner, () => {
      const amount = amountParam(req.body);
      const description = field(req.body, 'description');
      if (typeof description !== 'string' || description.trim() === '')
        throw unprocessable('The description is missing.', 'description');
      if (description.length > 255) throw unprocessable('The description is too long.', 'description');
      const p = sandbox.createPayment(owner, {
        amount: amount.minor,
        currency: amount.currency,
        description,
        redirectUrl: urlParam(req.body, 'redirectUrl', true),
        webhookUrl: urlParam(req.body, 'webhookUrl', false),
        metadata: metadataParam(req.body),
      });
      return { status: 201, body: paymentView(p, base()) };
    });
  });

  app.get<{ Params: { id: string }; Querystring: { embed?: string } }>('/v2/payments/:id', async (req) => {
    const p = sandbox.payment(req.params.id, apiKeyOf(req));
    const embed = new Set(
      (req.query.embed ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
    return paymentView(p, base(), embed);
  });

  app.delete<{ Params: { id: string } }>('/v2/payments/:id', async (req, reply) => {
    const owner = apiKeyOf(req);
    return deps.idempotency.run(req, reply, owner, () => ({
      status: 200,
      body: paymentView(sandbox.cancel(sandbox.payment(req.params.id, owner)), base()),
    }));
  });

  app.post<{ Params: { id: string } }>('/v2/payments/:id/refunds', async (req, reply) => {
    const owner = apiKeyOf(req);
    return deps.idempotency.run(req, reply, owner, () => {
      const p = sandbox.payment(req.params.id, owner);
      const amount = amountParam(req.body, p.currency);
      const description = field(req.body, 'description');
      const r = sandbox.createRefund(
        p,
        amount.minor,
        typeof description === 'string' ? description : '',
        metadataParam(req.body),
      );
      // The sandbox's bank answers at once: the refund completes right after this response.
      setImmediate(() => {
        if (r.status === 'pending') sandbox.settleRefund(r);
      });
      return { status: 201, body: refundView(r, p, base()) };
    });
  });

  app.get<{ Params: { id: string } }>('/v2/payments/:id/refunds', async (req) => {
    const p = sandbox.payment(req.params.id, apiKeyOf(req));
    return listView(
      'refunds',
      p.refunds.map((r) => refundView(r, p, base())),
      `${base()}/v2/payments/${p.id}/refunds`,
    );
  });

  app.get<{ Params: { id: string; refundId: string } }>('/v2/payments/:id/refunds/:refundId', async (req) => {
    const p = sandbox.payment(req.params.id, apiKeyOf(req));
    const r = p.refunds.find((x) => x.id === req.params.refundId);
    if (!r) throw new ApiError(404, 'Not Found', `No refund exists with token ${req.params.refundId}.`);
    return refundView(r, p, base());
  });

  app.get<{ Params: { id: string } }>('/v2/payments/:id/chargebacks', async (req) => {
    const p = sandbox.payment(req.params.id, apiKeyOf(req));
    return listView(
      'chargebacks',
      p.chargebacks.map((c) => chargebackView(c, p, base())),
      `${base()}/v2/payments/${p.id}/chargebacks`,
    );
  });

  app.get<{ Params: { id: string; chargebackId: string } }>(
    '/v2/payments/:id/chargebacks/:chargebackId',
    async (req) => {
      const p = sandbox.payment(req.params.id, apiKeyOf(req));
      const c = p.chargebacks.find((x) => x.id === req.params.chargebackId);
      if (!c) throw new ApiError(404, 'Not Found', `No chargeback exists with token ${req.params.chargebackId}.`);
      return chargebackView(c, p, base());
    },
  );
}
