import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account, OperationContext, Sandbox } from '../domain/account';
import { ApiError, invalidParam } from '../errors';
import type { WebhookDispatcher } from '../webhooks/delivery';
import { authenticate } from './auth';
import { canonicalJson, type ExecResult, type IdempotencyStore, MAX_KEY_LENGTH } from './idempotency';

export interface ApiDeps {
  sandbox: Sandbox;
  dispatcher: WebhookDispatcher;
  idempotency: IdempotencyStore;
}

/** `{ id: string }` for `/v1/charges/:id`: the route's path parameters, each present. */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, string>;

export interface ApiCall<P extends string = string> {
  req: FastifyRequest;
  account: Account;
  /** Parsed body ({} when there is none). */
  body: unknown;
  query: unknown;
  params: PathParams<P>;
  /** The request as recorded on events it causes. */
  op: OperationContext;
}

/** Returns the response object (sent with status 200) or throws an ApiError. */
export type ApiHandler<P extends string = string> = (call: ApiCall<P>) => unknown;

export function errorJson(err: ApiError): string {
  return JSON.stringify({ error: err.body });
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Registers an authenticated v1 route. POSTs honour `Idempotency-Key`: the response of the first
 * request with a key is stored per account and replayed (with `Idempotent-Replayed: true`) for
 * later requests with the same key and parameters; different parameters get an idempotency_error.
 */
export function apiRoute<P extends string>(
  app: FastifyInstance,
  deps: ApiDeps,
  method: 'GET' | 'POST' | 'DELETE',
  url: P,
  handler: ApiHandler<P>,
): void {
  app.route({
    method,
    url,
    handler: async (req, reply) => {
      const apiKey = authenticate(req);
      const account = deps.sandbox.account(apiKey);
      const idempotencyKey = method === 'POST' ? header(req, 'idempotency-key') : undefined;
      const call: ApiCall<P> = {
        req,
        account,
        body: req.body ?? {},
        query: req.query ?? {},
        // Fastify matched `url`, so each of its path parameters is present.
        params: req.params as PathParams<P>,
        op: { request: { id: req.id, idempotency_key: idempotencyKey ?? null } },
      };
      const exec = async (): Promise<ExecResult> => {
        try {
          const result = await handler(call);
          return { status: 200, body: JSON.stringify(result), store: true };
        } catch (err) {
          if (err instanceof ApiError) return { status: err.status, body: errorJson(err), store: err.replayable };
          throw err;
        }
      };
      reply.header('Stripe-Version', header(req, 'stripe-version') ?? account.sandbox.options.apiVersion);
      reply.type('application/json; charset=utf-8');
      if (idempotencyKey === undefined) {
        const out = await exec();
        return reply.code(out.status).send(out.body);
      }
      if (idempotencyKey.length > MAX_KEY_LENGTH) {
        throw invalidParam(`Idempotency-Key must be no longer than ${MAX_KEY_LENGTH} characters.`, 'Idempotency-Key');
      }
      const fingerprint = canonicalJson({ method, url: req.url, body: call.body });
      const out = await deps.idempotency.execute(apiKey, idempotencyKey, fingerprint, req.id, exec);
      reply.header('Idempotency-Key', idempotencyKey);
      if (out.replayed) {
        reply.header('Idempotent-Replayed', 'true');
        if (out.originalRequestId) reply.header('Original-Request', out.originalRequestId);
      }
      return reply.code(out.status).send(out.body);
    },
  });
}
