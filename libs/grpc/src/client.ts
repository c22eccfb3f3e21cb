import {
  Metadata,
  type ChannelCredentials,
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import { contextHeaders } from '@paymesh/core';
import { health } from '@paymesh/proto';
import { fromGrpcError } from './errors';
import { channelCredentials, grpcSecurity, type GrpcSecurity } from './security';

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

export interface CallConfig {
  /** Per-call deadline in milliseconds. */
  deadlineMs: number;
  /** Name used in error messages ("checkout unavailable: ..."). */
  target: string;
}

/**
 * Calls a unary RPC with the current request context in its metadata and a deadline, and rethrows
 * downstream failures as the DomainError the callee raised.
 */
export function call<Req, Res>(
  client: Client,
  method: UnaryMethod<Req, Res>,
  request: Req,
  cfg: CallConfig,
): Promise<Res> {
  const md = new Metadata();
  for (const [k, v] of Object.entries(contextHeaders())) md.set(k, v);
  const options: Partial<CallOptions> = { deadline: new Date(Date.now() + cfg.deadlineMs) };
  return new Promise<Res>((resolve, reject) => {
    method.call(client, request, md, options, (err, res) => {
      if (err) reject(fromGrpcError(err, cfg.target));
      else resolve(res);
    });
  });
}

export type ClientCtor<C extends Client> = new (address: string, creds: ChannelCredentials) => C;

/**
 * Builds a client with the process's gRPC security (mutual TLS with the mesh CA once the service
 * configured it, see {@link setGrpcSecurity}), or with the one given.
 */
export function makeClient<C extends Client>(Ctor: ClientCtor<C>, address: string, security: GrpcSecurity = grpcSecurity()): C {
  return new Ctor(address, channelCredentials(security));
}

/** Standard health check against a service; resolves to true when it reports SERVING. */
export async function checkHealth(address: string, deadlineMs = 1500, security: GrpcSecurity = grpcSecurity()): Promise<boolean> {
  const client = makeClient(health.HealthClient, address, security);
  try {
    const res = await call(client, client.check, { service: '' }, { deadlineMs, target: address });
    return res.status === health.HealthCheckResponse_ServingStatus.SERVING;
  } catch {
    return false;
  } finally {
    client.close();
  }
}
