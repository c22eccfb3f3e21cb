import type { Client, handleUnaryCall } from '@grpc/grpc-js';
import { decodeJson, type Logger, type WireTenant } from '@paymesh/core';
import type { common } from '@paymesh/proto';
import type { z, ZodTypeAny } from 'zod';
import { call, type CallConfig, type UnaryMethod } from './client';
import { unary } from './server';

/** The shared envelope of document-shaped RPCs (`common.v1.JsonRequest`). */
export type JsonEnvelope = common.JsonRequest;
export type JsonAnswer = common.JsonResponse;

/** An RPC map entry as @paymesh/contracts defines it (`jsonRpc`, `envelopeRpc`). */
interface RequestDef {
  readonly request: ZodTypeAny;
}
export interface AnswerDef extends RequestDef {
  readonly answer: ZodTypeAny;
}

/** What the handler of an envelope RPC gets: the body decoded with the map's schema, and the envelope (tenant, id, actor). */
export type EnvelopeHandler<D extends RequestDef, Res> = (
  body: z.output<D['request']>,
  envelope: JsonEnvelope,
) => Promise<Res>;

/** Options of a handler: `precheck` sees the parsed body before the schema (see decodeJson). */
export interface HandlerOptions {
  precheck?: (raw: unknown) => void;
}

function rpcName(service: string, method: string): string {
  return `${service}/${method.charAt(0).toUpperCase()}${method.slice(1)}`;
}

/**
 * The gRPC edge of a service's envelope RPCs: each handler receives the body decoded once with the
 * RPC map's request schema and returns the answer the map names (JSON) or the proto message of a
 * file RPC. Use cases behind it see typed values, never the wire.
 */
export interface EnvelopeServer<
  J extends { readonly [P in keyof J]: AnswerDef },
  F extends { readonly [P in keyof F]: RequestDef },
> {
  /** A JSON-answer RPC of the map: the handler's answer is checked against the map at compile time. */
  json<K extends keyof J & string>(
    method: K,
    handler: EnvelopeHandler<J[K], z.input<J[K]['answer']>>,
    options?: HandlerOptions,
  ): handleUnaryCall<JsonEnvelope, JsonAnswer>;
  /** An RPC with an envelope body and a proto answer (a file, a PDF). */
  file<K extends keyof F & string, Res>(
    method: K,
    handler: EnvelopeHandler<F[K], Res>,
  ): handleUnaryCall<JsonEnvelope, Res>;
}

/** Builds the {@link EnvelopeServer} of a service from its RPC maps. */
export function envelopeServer<
  J extends { readonly [P in keyof J]: AnswerDef },
  F extends { readonly [P in keyof F]: RequestDef },
>(logger: Logger, service: string, jsonMap: J, fileMap: F): EnvelopeServer<J, F> {
  return {
    json<K extends keyof J & string>(
      method: K,
      handler: EnvelopeHandler<J[K], z.input<J[K]['answer']>>,
      options: HandlerOptions = {},
    ): handleUnaryCall<JsonEnvelope, JsonAnswer> {
      const schema = jsonMap[method].request;
      return unary(logger, rpcName(service, method), async (req: JsonEnvelope) => ({
        json: JSON.stringify(await handler(decodeJson(schema, req.bodyJson, options.precheck), req)),
      }));
    },
    file<K extends keyof F & string, Res>(
      method: K,
      handler: EnvelopeHandler<F[K], Res>,
    ): handleUnaryCall<JsonEnvelope, Res> {
      const schema = fileMap[method].request;
      return unary(logger, rpcName(service, method), async (req: JsonEnvelope) =>
        handler(decodeJson(schema, req.bodyJson), req),
      );
    },
  };
}

/** The tenant of a call, as the envelope carries it (`toWire` of @paymesh/core makes it). */
export type EnvelopeTenant = WireTenant;

/** What a caller puts in the envelope besides the body. */
export interface EnvelopeFields {
  /** The record the RPC names. */
  id?: string;
  /** Who acts (audit trails). */
  actor?: string;
  idempotencyKey?: string;
  /** Buyer portal calls: the buyer's e-mail. */
  email?: string;
  /** Deadline when not the client's usual one (calls that render a document). */
  deadlineMs?: number;
}

/** The body argument: optional when the RPC's schema accepts `{}`. */
export type BodyArg<I> = Record<string, never> extends I ? { body?: I } : { body: I };

/** The envelope of a call: the body is serialized here and nowhere else. */
export function envelopeOf(tenant: EnvelopeTenant, fields: EnvelopeFields, body: unknown): JsonEnvelope {
  return {
    organizationId: tenant.organizationId,
    testMode: tenant.testMode,
    id: fields.id ?? '',
    bodyJson: body === undefined ? '' : JSON.stringify(body),
    ...(fields.actor ? { actor: fields.actor } : {}),
    ...(fields.idempotencyKey ? { idempotencyKey: fields.idempotencyKey } : {}),
    ...(fields.email !== undefined ? { email: fields.email } : {}),
  };
}

/** Methods of a generated client that take the envelope and answer JSON. */
export type JsonMethods<J> = { [K in keyof J]: UnaryMethod<JsonEnvelope, JsonAnswer> };

/** A caller of a service's JSON-answer envelope RPCs. */
export interface JsonCaller<J extends { readonly [P in keyof J]: AnswerDef }> {
  json<K extends keyof J & string>(
    method: K,
    tenant: EnvelopeTenant,
    args: EnvelopeFields & BodyArg<z.input<J[K]['request']>>,
  ): Promise<z.output<J[K]['answer']>>;
}

/**
 * The caller's side of a service's envelope RPCs, typed by the same RPC map as the handlers: the
 * body must be the request schema's input, and the answer comes back checked by the answer schema
 * (a mismatch is a bug between the services, hence an internal error).
 */
export function jsonCaller<J extends { readonly [P in keyof J]: AnswerDef }>(
  client: Client & JsonMethods<J>,
  jsonMap: J,
  cfg: CallConfig,
): JsonCaller<J> {
  return {
    async json<K extends keyof J & string>(
      method: K,
      tenant: EnvelopeTenant,
      args: EnvelopeFields & BodyArg<z.input<J[K]['request']>>,
    ): Promise<z.output<J[K]['answer']>> {
      const fn: UnaryMethod<JsonEnvelope, JsonAnswer> = client[method];
      const res = await call(client, fn, envelopeOf(tenant, args, args.body), {
        deadlineMs: args.deadlineMs ?? cfg.deadlineMs,
        target: cfg.target,
      });
      return jsonMap[method].answer.parse(JSON.parse(res.json));
    },
  };
}

/**
 * Calls an RPC whose body travels in the envelope and whose answer is a proto message (a file, a
 * PDF): `fn` is the generated client's method (its answer type is the result's), `def` the RPC's
 * entry in its service's map (the body's type). Index both with the same method name.
 */
export function callEnvelope<S extends ZodTypeAny, Res>(
  client: Client,
  fn: UnaryMethod<JsonEnvelope, Res>,
  _def: { readonly request: S },
  tenant: EnvelopeTenant,
  args: EnvelopeFields & BodyArg<z.input<S>>,
  cfg: CallConfig,
): Promise<Res> {
  return call(client, fn, envelopeOf(tenant, args, args.body), {
    deadlineMs: args.deadlineMs ?? cfg.deadlineMs,
    target: cfg.target,
  });
}
