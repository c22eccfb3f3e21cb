import { Readable } from 'node:stream';
import {
  Metadata,
  type CallOptions,
  type Client,
  type ClientReadableStream,
  type ClientWritableStream,
  type sendUnaryData,
  type ServerReadableStream,
  type ServerWritableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { contextFromHeaders, contextHeaders, isDomainError, runWithContext, type Logger } from '@paymesh/core';
import { fromGrpcError, toGrpcError } from './errors';
import type { CallConfig } from './client';

function contextOf(md: Metadata) {
  return contextFromHeaders((name) => {
    const v = md.get(name)[0];
    return typeof v === 'string' ? v : undefined;
  });
}

function logFailure(logger: Logger, method: string, err: unknown): void {
  if (isDomainError(err) && err.kind !== 'internal')
    logger.info({ rpc: method, kind: err.kind, code: err.code, err: err.message }, 'rpc rejected');
  else logger.error({ rpc: method, err }, 'rpc failed');
}

/**
 * Adapts an async handler of a client-streaming RPC: the handler reads the caller's messages from
 * `messages` (an async iterable with backpressure: the caller is slowed while the handler works)
 * and returns the one answer, or throws a DomainError mapped onto its gRPC status.
 */
export function clientStreaming<Req, Res>(
  logger: Logger,
  method: string,
  handler: (messages: AsyncIterable<Req>) => Promise<Res>,
): (call: ServerReadableStream<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    runWithContext(contextOf(call.metadata), () => {
      const started = Date.now();
      handler(call as AsyncIterable<Req>).then(
        (res) => {
          logger.debug({ rpc: method, ms: Date.now() - started }, 'rpc ok');
          callback(null, res);
        },
        (err: unknown) => {
          logFailure(logger, method, err);
          // The status ends the call; what the caller still sends is dropped.
          callback(toGrpcError(err), null);
        },
      );
    });
  };
}

/**
 * Adapts an async generator to a server-streaming RPC: each yielded message is written with
 * backpressure (the generator waits while the caller's window is full), a throw ends the call with
 * the DomainError's status, and a caller that goes away stops the generator.
 */
export function serverStreaming<Req, Res>(
  logger: Logger,
  method: string,
  handler: (request: Req) => AsyncIterable<Res>,
): (call: ServerWritableStream<Req, Res>) => void {
  return (call) => {
    runWithContext(contextOf(call.metadata), () => {
      const started = Date.now();
      let cancelled = false;
      call.on('cancelled', () => (cancelled = true));
      const run = async () => {
        for await (const message of handler(call.request)) {
          if (cancelled) return;
          if (!call.write(message)) await new Promise<void>((resolve) => call.once('drain', resolve));
        }
      };
      run().then(
        () => {
          logger.debug({ rpc: method, ms: Date.now() - started, cancelled }, 'rpc stream ended');
          if (!cancelled) call.end();
        },
        (err: unknown) => {
          logFailure(logger, method, err);
          // grpc-js turns an 'error' event into the call's status and ends it.
          if (!cancelled) call.emit('error', toGrpcError(err));
        },
      );
    });
  };
}

type ClientStreamMethod<Req, Res> = (
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientWritableStream<Req>;

/**
 * Calls a client-streaming RPC: writes every message of `messages` in order (waiting whenever the
 * channel asks to), then resolves to the answer; a failure of the callee is rethrown as its DomainError.
 */
export function callClientStream<Req, Res>(
  client: Client,
  method: ClientStreamMethod<Req, Res>,
  messages: Iterable<Req> | AsyncIterable<Req>,
  cfg: CallConfig,
): Promise<Res> {
  const md = new Metadata();
  for (const [k, v] of Object.entries(contextHeaders())) md.set(k, v);
  return new Promise<Res>((resolve, reject) => {
    let settled = false;
    const stream = method.call(client, md, { deadline: new Date(Date.now() + cfg.deadlineMs) }, (err, res) => {
      settled = true;
      if (err) reject(fromGrpcError(err, cfg.target));
      else resolve(res);
    });
    const pump = async () => {
      for await (const message of messages) {
        if (settled) return;
        if (!stream.write(message)) await new Promise<void>((r) => stream.once('drain', r));
      }
      stream.end();
    };
    pump().catch((err: unknown) => {
      stream.cancel();
      if (!settled) reject(err);
    });
  });
}

type ServerStreamMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options?: Partial<CallOptions>,
) => ClientReadableStream<Res>;

/**
 * Calls a server-streaming RPC and hands back its messages as a readable stream; a failure of the
 * callee destroys the stream with the callee's DomainError. Destroying the stream cancels the call.
 */
export function callServerStream<Req, Res>(
  client: Client,
  method: ServerStreamMethod<Req, Res>,
  request: Req,
  cfg: CallConfig,
): Readable {
  const md = new Metadata();
  for (const [k, v] of Object.entries(contextHeaders())) md.set(k, v);
  const call = method.call(client, request, md, { deadline: new Date(Date.now() + cfg.deadlineMs) });
  const out = new Readable({
    objectMode: true,
    read() {
      call.resume();
    },
    destroy(err, cb) {
      call.cancel();
      cb(err);
    },
  });
  call.on('data', (message: Res) => {
    if (!out.push(message)) call.pause();
  });
  call.on('end', () => out.push(null));
  call.on('error', (err: ServiceError) => {
    // 1 = CANCELLED: our own destroy above.
    if (err.code !== 1) out.destroy(fromGrpcError(err, cfg.target));
  });
  return out;
}
