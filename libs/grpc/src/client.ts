import {
  Metadata,
  type ChannelOptions,
  type ChannelCredentials,
  type CallOptions,
  type Client,
  type ClientOptions,
  type ClientUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import { contextHeaders } from '@paymesh/core';
import { health } from '@paymesh/proto';
import { fromGrpcError } from './errors';
import { channelCredentials, grpcSecurity, type GrpcSecurity } from './security';
import { countingInterceptor } from './stats';

export type UnaryMethod<Req, Res> = (
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

export type ClientCtor<C extends Client> = new (
  address: string,
  creds: ChannelCredentials,
  options?: Partial<ClientOptions>,
) => C;

/**
 * A loopback address is checked against the certificate's `localhost` name: TLS server names may
 * not be IP addresses (RFC 6066), and every mesh certificate names localhost beside its loopback
 * addresses. Other addresses are verified as dialled.
 */
function channelOptions(address: string, security: GrpcSecurity): ChannelOptions {
  if (security.kind === 'insecure') return {};
  const host = address
    .replace(/^dns:(\/\/\/)?/, '')
    .replace(/:\d+$/, '')
    .replace(/^\[(.*)\]$/, '$1');
  return host === '127.0.0.1' || host === '::1' ? { 'grpc.ssl_target_name_override': 'localhost' } : {};
}

/**
 * Builds a client with the process's gRPC security (mutual TLS with the mesh CA once the service
 * configured it, see {@link setGrpcSecurity}), or with the one given. Its calls are counted
 * ({@link grpcStats}).
 */
export function makeClient<C extends Client>(
  Ctor: ClientCtor<C>,
  address: string,
  security: GrpcSecurity = grpcSecurity(),
): C {
  return new Ctor(address, channelCredentials(security), {
    ...channelOptions(address, security),
    interceptors: [countingInterceptor],
  });
}

/** Standard health check against a service; resolves to true when it reports SERVING. Not counted. */
export async function checkHealth(
  address: string,
  deadlineMs = 1500,
  security: GrpcSecurity = grpcSecurity(),
): Promise<boolean> {
  const client = new health.HealthClient(address, channelCredentials(security), channelOptions(address, security));
  try {
    const res = await call(client, client.check, { service: '' }, { deadlineMs, target: address });
    return res.status === health.HealthCheckResponse_ServingStatus.SERVING;
  } catch {
    return false;
  } finally {
    client.close();
  }
}
