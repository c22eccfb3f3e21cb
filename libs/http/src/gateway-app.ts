import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from '@paymesh/core';
import { httpDrainPlugin } from './drain';
import { errorEnvelopePlugin, frameworkErrorHandler } from './errors';
import { inputGuardPlugin } from './input-guard';
import { genRequestId, requestContextPlugin } from './request-context';

export interface GatewayAppOptions {
  logger: Logger;
  bodyLimit: number;
  /** Reverse proxies to believe for the client address (see TRUST_PROXY). */
  trustProxy?: boolean | string;
}

/**
 * The Fastify base both gateways are built on: request IDs, the drain on stop, zod schemas for
 * validation and answers, the request context, the `{"error"}` envelope and the input guard.
 * Each gateway adds its own plugins, documents and routes on top.
 */
export async function createGatewayApp(opts: GatewayAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: genRequestId,
    // Bad URL encoding and over-long path parameters: our envelope and X-Request-ID, not fastify's body.
    frameworkErrors: frameworkErrorHandler,
    bodyLimit: opts.bodyLimit,
    trustProxy: opts.trustProxy ?? false,
    // A request that arrives on an open connection while the server closes is answered (and its
    // connection closed), not refused with a 503: see httpDrainPlugin.
    return503OnClosing: false,
  });
  await app.register(httpDrainPlugin);
  // Route schemas are zod: answers are checked and serialized through them, the document is built from them.
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(requestContextPlugin);
  await app.register(errorEnvelopePlugin);
  await app.register(inputGuardPlugin);
  return app;
}
