import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { envInt } from '@paymesh/core';

/** The gateways' graceful-stop setting (merge into the service's config schema). */
export const httpDrainConfigSchema = z.object({
  /**
   * After SIGTERM, how long a gateway keeps answering on the connections already open before it
   * closes the idle ones. Every answer in that time carries `Connection: close`, so keep-alive
   * clients open their next connection to another replica instead of finding this one gone.
   */
  HTTP_DRAIN_MS: envInt(5000).pipe(z.number().int().min(0).max(120_000)),
});
export type HttpDrainConfig = z.infer<typeof httpDrainConfigSchema>;

/** How a drain ended. */
export interface HttpDrainResult {
  /** Connections still open when it ended (idle keep-alive connections the close then ends). */
  openConnections: number;
  waitedMs: number;
}

/** A gateway's graceful stop of its HTTP side. */
export interface HttpDrain {
  /** Requests being answered now. */
  readonly inFlight: number;
  /** Whether {@link HttpDrain.drain} was called. */
  readonly draining: boolean;
  /**
   * From now on every answer closes its connection; resolves once no request is in flight and no
   * connection is open, or after `ms`. The server keeps listening: close it afterwards.
   */
  drain(ms: number): Promise<HttpDrainResult>;
}

declare module 'fastify' {
  interface FastifyInstance {
    httpDrain: HttpDrain;
  }
}

const POLL_MS = 50;

function openConnections(app: FastifyInstance): Promise<number> {
  return new Promise((resolve) => app.server.getConnections((err, n) => resolve(err ? 0 : n)));
}

/**
 * Decorates the app with `httpDrain`. Register it before the routes. Build the app with
 * `return503OnClosing: false`, so that a request arriving on an open connection while the server
 * closes is answered (with `Connection: close`) rather than refused with a 503.
 */
export const httpDrainPlugin = fp(
  async (app: FastifyInstance) => {
    let draining = false;
    let inFlight = 0;
    app.addHook('onRequest', async (_req, reply) => {
      inFlight += 1;
      reply.raw.once('close', () => {
        inFlight -= 1;
      });
      if (draining) reply.header('connection', 'close');
    });
    const drain: HttpDrain = {
      get inFlight() {
        return inFlight;
      },
      get draining() {
        return draining;
      },
      async drain(ms) {
        draining = true;
        const started = Date.now();
        for (;;) {
          const open = await openConnections(app);
          const waitedMs = Date.now() - started;
          if ((open === 0 && inFlight === 0) || waitedMs >= ms) return { openConnections: open, waitedMs };
          await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, ms - waitedMs)));
        }
      },
    };
    app.decorate('httpDrain', drain);
  },
  { name: 'paymesh-http-drain' },
);
