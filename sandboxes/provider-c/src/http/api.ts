import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, unauthorized, validationFailed } from '../errors';
import { CURRENCIES, type Metadata, type Sandbox } from '../domain/sandbox';
import { billingRequestView, flowView, mandateView, paymentView, refundView } from '../domain/views';

export interface ApiDeps {
  sandbox: Sandbox;
  publicUrl: () => string;
  idempotency: IdempotencyStore;
}

/** An access token is an account: `sandbox_…` (the only environment this sandbox serves) or `live_…`. */
const TOKEN = /^(sandbox|live)_[A-Za-z0-9_-]{20,100}$/;

export function tokenOf(req: FastifyRequest): string {
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  if (!m?.[1] || !TOKEN.test(m[1])) throw unauthorized();
  return m[1];
}

const DAY_MS = 24 * 60 * 60_000;

/**
 * Stored answers per (account, Idempotency-Key): the same request replays its answer; the key
 * reused for another request is refused with 409 `idempotent_creation_conflict`, naming the
 * resource the key created (`links.conflicting_resource_id`).
 */
export class IdempotencyStore {
  private readonly entries = new Map<
    string,
    { fingerprint: string; status: number; body: unknown; resourceId: string; at: number }
  >();

  constructor(
    private readonly now: () => number,
    private readonly replay = true,
  ) {}

  async run(
    req: FastifyRequest,
    reply: FastifyReply,
    owner: string,
    fn: () => { status: number; body: unknown; resourceId: string },
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
      if (!this.replay || hit.fingerprint !== fingerprint) {
        throw new ApiError(
          409,
          'invalid_state',
          'A resource has already been created with this idempotency key',
          'idempotent_creation_conflict',
          undefined,
          {
            conflicting_resource_id: hit.resourceId,
          },
        );
      }
      return reply.code(hit.status).header('idempotent-replayed', 'true').send(hit.body);
    }
    // A refused request throws before anything is stored, so a corrected retry with the same key goes through.
    const res = fn();
    this.entries.set(id, {
      fingerprint,
      status: res.status,
      body: res.body,
      resourceId: res.resourceId,
      at: this.now(),
    });
    return reply.code(res.status).send(res.body);
  }
}

export function field(body: unknown, name: string): unknown {
  if (body === null || typeof body !== 'object' || !Object.hasOwn(body, name)) return undefined;
  const value: unknown = Reflect.get(body, name);
  return value;
}

/** The request's resource envelope (`{"payments": {...}}`). */
function envelope(req: FastifyRequest, name: string): unknown {
  const inner = field(req.body, name);
  if (inner === null || typeof inner !== 'object' || Array.isArray(inner))
    throw validationFailed(`The request body must be an object under "${name}".`, name);
  return inner;
}

/** Up to 3 string keys (names up to 50 characters, values up to 500), as the provider allows. */
export function metadataParam(body: unknown, path: string): Metadata {
  const m = field(body, 'metadata');
  if (m === undefined || m === null) return {};
  if (typeof m !== 'object' || Array.isArray(m)) throw validationFailed('metadata must be an object', path);
  const entries = Object.entries(m);
  if (entries.length > 3) throw validationFailed('metadata may have at most 3 keys', path);
  for (const [k, v] of entries) {
    if (k.length > 50 || typeof v !== 'string' || v.length > 500)
      throw validationFailed('metadata keys are at most 50 characters, values strings of at most 500', path);
  }
  return Object.fromEntries(entries) as Metadata;
}

function urlParam(body: unknown, name: string): string | null {
  const v = field(body, name);
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || !/^https?:\/\/[^\s]+$/.test(v) || !URL.canParse(v))
    throw validationFailed(`${name} is not a valid URL`, name);
  return v;
}

function amountParam(body: unknown, name: string): number {
  const v = field(body, name);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)
    throw validationFailed(`${name} must be a positive integer of minor units`, name);
  return v;
}

/** The API subset the platform calls (JSON in and out, resources wrapped in their type name). */
export function apiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { sandbox } = deps;

  app.post('/billing_requests', async (req, reply) => {
    const owner = tokenOf(req);
    return deps.idempotency.run(req, reply, owner, () => {
      const b = envelope(req, 'billing_requests');
      const pr = field(b, 'payment_request');
      if (pr === undefined || pr === null || typeof pr !== 'object')
        throw validationFailed('payment_request is required by this sandbox', 'payment_request');
      const currency = field(pr, 'currency');
      if (typeof currency !== 'string' || !CURRENCIES.has(currency))
        throw validationFailed('currency is not supported', 'payment_request.currency');
      const mr = field(b, 'mandate_request');
      if (mr !== undefined && field(mr, 'currency') !== currency)
        throw validationFailed('mandate_request.currency must match the payment request', 'mandate_request.currency');
      const description = field(pr, 'description') ?? '';
      if (typeof description !== 'string' || description.length > 255)
        throw validationFailed('description must be a string of at most 255 characters', 'payment_request.description');
      const br = sandbox.createBillingRequest(owner, {
        amount: amountParam(pr, 'amount'),
        currency,
        description,
        metadata: metadataParam(b, 'metadata'),
        paymentMetadata: metadataParam(pr, 'payment_request.metadata'),
      });
      return { status: 201, body: { billing_requests: billingRequestView(br) }, resourceId: br.id };
    });
  });

  app.get<{ Params: { id: string } }>('/billing_requests/:id', async (req) => ({
    billing_requests: billingRequestView(sandbox.billingRequest(req.params.id, tokenOf(req))),
  }));

  app.post('/billing_request_flows', async (req, reply) => {
    const owner = tokenOf(req);
    return deps.idempotency.run(req, reply, owner, () => {
      const b = envelope(req, 'billing_request_flows');
      const brId = field(field(b, 'links'), 'billing_request');
      if (typeof brId !== 'string')
        throw validationFailed('links.billing_request is required', 'links.billing_request');
      const f = sandbox.createFlow(owner, brId, urlParam(b, 'redirect_uri'), urlParam(b, 'exit_uri'));
      return { status: 201, body: { billing_request_flows: flowView(f, deps.publicUrl()) }, resourceId: f.id };
    });
  });

  app.get<{ Params: { id: string } }>('/payments/:id', async (req) => ({
    payments: paymentView(sandbox.payment(req.params.id, tokenOf(req))),
  }));

  app.post<{ Params: { id: string } }>('/payments/:id/actions/cancel', async (req, reply) => {
    const owner = tokenOf(req);
    return deps.idempotency.run(req, reply, owner, () => {
      const p = sandbox.cancelPayment(sandbox.payment(req.params.id, owner));
      return { status: 200, body: { payments: paymentView(p) }, resourceId: p.id };
    });
  });

  app.get<{ Params: { id: string } }>('/mandates/:id', async (req) => ({
    mandates: mandateView(sandbox.mandate(req.params.id, tokenOf(req))),
  }));

  app.post('/refunds', async (req, reply) => {
    const owner = tokenOf(req);
    return deps.idempotency.run(req, reply, owner, () => {
      const b = envelope(req, 'refunds');
      const paymentId = field(field(b, 'links'), 'payment');
      if (typeof paymentId !== 'string') throw validationFailed('links.payment is required', 'links.payment');
      const p = sandbox.payment(paymentId, owner);
      const total = field(b, 'total_amount_confirmation');
      const reference = field(b, 'reference');
      const r = sandbox.createRefund(
        p,
        amountParam(b, 'amount'),
        total === undefined ? null : amountParam(b, 'total_amount_confirmation'),
        typeof reference === 'string' ? reference : null,
        metadataParam(b, 'metadata'),
      );
      return { status: 201, body: { refunds: refundView(r) }, resourceId: r.id };
    });
  });

  app.get<{ Params: { id: string } }>('/refunds/:id', async (req) => ({
    refunds: refundView(sandbox.refund(req.params.id, tokenOf(req))),
  }));
}
