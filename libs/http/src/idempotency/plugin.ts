import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ErrorCode, isDomainError, ValidationError } from '@paymesh/core';
import { isKeptStatus } from './decide';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_RULE,
  IDEMPOTENT_REPLAYED_HEADER,
  isIdempotencyKey,
  requestFingerprint,
} from './fingerprint';
import type { Claim, IdempotencyRecords } from './records';

export interface IdempotencyPluginOptions {
  records: IdempotencyRecords;
  /** operationIds of the routes that honour Idempotency-Key (elsewhere the header is ignored). */
  operations: ReadonlySet<string>;
  /**
   * Whose key it is: the caller's scope (API key or user, organization and mode; a buyer session).
   * Called once the route has authenticated the caller and validated the input, before the key is
   * claimed; may throw (a ValidationError is a 400 and claims nothing).
   */
  scopeOf(req: FastifyRequest): string | Promise<string>;
  /** The route as the fingerprint names it (default: the URL path without the query string). */
  pathOf?(req: FastifyRequest): string;
  /** Removes expired records in bounded batches every so many ms (default 10 min); 0: never. */
  purgeEveryMs?: number;
}

const DEFAULT_PURGE_EVERY_MS = 10 * 60_000;

function operationOf(req: FastifyRequest): string | undefined {
  const id = (req.routeOptions.schema as { operationId?: unknown } | undefined)?.operationId;
  return typeof id === 'string' ? id : undefined;
}

const urlPath = (req: FastifyRequest): string => req.url.split('?')[0] ?? req.url;

/**
 * Idempotency-Key on the routes named in `operations`. Runs as a preHandler, so after the route's
 * authentication (onRequest) and schema validation: failures there never touch the key. Register it
 * where its preHandler runs after the scope's other preHandlers (CORS), so a replay carries them.
 *
 * - no header: the request runs as always;
 * - a malformed key: 400; the same key with another body or route: 409 IDEMPOTENCY_KEY_REUSED;
 * - the first request with a key claims it, and its answer is kept when {@link isKeptStatus};
 * - a concurrent one waits for that answer, a later one gets it again (status, content type, body)
 *   with `Idempotent-Replayed: true`, without running the handler.
 */
export const idempotencyPlugin = fp(
  async (app: FastifyInstance, opts: IdempotencyPluginOptions) => {
    const claims = new WeakMap<FastifyRequest, Claim>();
    const pathOf = opts.pathOf ?? urlPath;

    app.addHook('preHandler', async (req, reply) => {
      const raw = req.headers[IDEMPOTENCY_KEY_HEADER];
      if (raw === undefined) return;
      const op = operationOf(req);
      if (!op || !opts.operations.has(op)) return;
      if (typeof raw !== 'string' || !isIdempotencyKey(raw)) {
        throw new ValidationError(`headers.idempotency-key: must be ${IDEMPOTENCY_KEY_RULE}`, {
          field: IDEMPOTENCY_KEY_HEADER,
        });
      }
      const scope = await opts.scopeOf(req);
      const fingerprint = requestFingerprint({ method: req.method, path: pathOf(req), body: req.body });
      let begun;
      try {
        begun = await opts.records.begin(scope, raw, fingerprint);
      } catch (err) {
        if (isDomainError(err) && err.code === ErrorCode.IDEMPOTENCY_KEY_IN_PROGRESS) reply.header('retry-after', '1');
        throw err;
      }
      if (begun.kind === 'replay') {
        const { answer } = begun;
        req.log.info({ status: answer.status }, 'idempotent replay');
        return reply
          .code(answer.status)
          .header('content-type', answer.contentType)
          .header(IDEMPOTENT_REPLAYED_HEADER, 'true')
          .send(answer.body);
      }
      claims.set(req, begun.claim);
    });

    app.addHook('onSend', async (req, reply, payload) => {
      const claim = claims.get(req);
      if (!claim) return payload;
      claims.delete(req);
      const status = reply.statusCode;
      const body =
        payload === null || payload === undefined
          ? ''
          : typeof payload === 'string' || Buffer.isBuffer(payload)
            ? payload
            : undefined;
      try {
        const kept = body !== undefined && isKeptStatus(status);
        const settled = kept
          ? await opts.records.complete(claim, {
              status,
              contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
              body,
            })
          : await opts.records.release(claim);
        if (!settled)
          req.log.warn(
            { status },
            'idempotency claim was taken over before this answer (its lease ran out); the answer is not kept',
          );
      } catch (err) {
        // The answer stands; the claim stays pending until its lease ends, then a retry runs again.
        req.log.error({ err }, 'idempotency record not updated');
      }
      return payload;
    });

    // An answer that never reached onSend (the connection went first): give the key back.
    app.addHook('onResponse', async (req) => {
      const claim = claims.get(req);
      if (!claim) return;
      claims.delete(req);
      await opts.records
        .release(claim)
        .catch((err: unknown) => req.log.error({ err }, 'idempotency claim not released'));
    });

    const every = opts.purgeEveryMs ?? DEFAULT_PURGE_EVERY_MS;
    if (every > 0) {
      let timer: NodeJS.Timeout | undefined;
      app.addHook('onReady', async () => {
        timer = setInterval(() => {
          opts.records.purgeExpired().then(
            (n) => n > 0 && app.log.debug({ removed: n }, 'expired idempotency keys removed'),
            (err: unknown) => app.log.warn({ err }, 'expired idempotency keys not removed'),
          );
        }, every);
        timer.unref();
      });
      app.addHook('onClose', async () => clearInterval(timer));
    }
  },
  { name: 'paymesh-idempotency' },
);
