import { z, type ZodTypeAny } from 'zod';

/**
 * One document-shaped RPC carried in the shared JSON envelope (`common.v1.JsonRequest`): the zod
 * schema of its body and, for a JSON answer, of its answer. The caller sends the schema's input, the
 * handler receives its output (decoded once at the gRPC edge) and answers the answer schema's input.
 */
export interface JsonRpc<Req extends ZodTypeAny = ZodTypeAny, Ans extends ZodTypeAny = ZodTypeAny> {
  readonly request: Req;
  readonly answer: Ans;
}

/** An RPC whose body travels in the JSON envelope and whose answer is a proto message (files, PDFs, streams). */
export interface EnvelopeRpc<Req extends ZodTypeAny = ZodTypeAny> {
  readonly request: Req;
}

export type JsonRpcMap = Readonly<Record<string, JsonRpc>>;
export type EnvelopeRpcMap = Readonly<Record<string, EnvelopeRpc>>;

export function jsonRpc<Req extends ZodTypeAny, Ans extends ZodTypeAny>(request: Req, answer: Ans): JsonRpc<Req, Ans> {
  return { request, answer };
}

export function envelopeRpc<Req extends ZodTypeAny>(request: Req): EnvelopeRpc<Req> {
  return { request };
}

/** What a caller of RPC `K` sends as the body. */
export type RpcInput<M extends EnvelopeRpcMap, K extends keyof M> = z.input<M[K]['request']>;
/** What the handler of RPC `K` receives (decoded). */
export type RpcBody<M extends EnvelopeRpcMap, K extends keyof M> = z.output<M[K]['request']>;
/** What the handler of RPC `K` answers. */
export type RpcAnswer<M extends JsonRpcMap, K extends keyof M> = z.input<M[K]['answer']>;
/** What a caller of RPC `K` gets back (the answer checked by its schema). */
export type RpcResult<M extends JsonRpcMap, K extends keyof M> = z.output<M[K]['answer']>;

/** The body of an RPC that takes none beyond the envelope (tenant, id): `{}` or nothing. */
export const emptyBody = z.object({}).strict();
