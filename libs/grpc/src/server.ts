import {
  Server,
  type Metadata,
  type ServerUnaryCall,
  type sendUnaryData,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { contextFromHeaders, runWithContext, type Logger, isDomainError } from '@paymesh/core';
import { health } from '@paymesh/proto';
import { toGrpcError } from './errors';
import { grpcSecurity, INSECURE, serverCredentials, type GrpcSecurity } from './security';
import { countingImplementation } from './stats';

function metadataGetter(md: Metadata): (name: string) => string | undefined {
  return (name) => {
    const v = md.get(name)[0];
    return typeof v === 'string' ? v : undefined;
  };
}

/** An async unary handler: gets the decoded request, returns the response or throws a DomainError. */
export type UnaryHandler<Req, Res> = (request: Req) => Promise<Res>;

/**
 * Adapts an async handler to grpc-js: restores the caller's request context from metadata, logs
 * failures once, and maps DomainErrors onto gRPC status codes.
 */
export function unary<Req, Res>(
  logger: Logger,
  method: string,
  handler: UnaryHandler<Req, Res>,
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    const ctx = contextFromHeaders(metadataGetter(call.metadata));
    runWithContext(ctx, () => {
      const started = Date.now();
      handler(call.request).then(
        (res) => {
          logger.debug({ rpc: method, ms: Date.now() - started }, 'rpc ok');
          callback(null, res);
        },
        (err: unknown) => {
          if (isDomainError(err) && err.kind !== 'internal') {
            logger.info({ rpc: method, kind: err.kind, code: err.code, err: err.message }, 'rpc rejected');
          } else {
            logger.error({ rpc: method, err }, 'rpc failed');
          }
          callback(toGrpcError(err), null);
        },
      );
    });
  };
}

export type HealthStatus = 'SERVING' | 'NOT_SERVING';

/** gRPC server with the standard health service registered. */
export class GrpcServer {
  readonly server = new Server({ 'grpc.max_receive_message_length': 8 * 1024 * 1024 });
  /** Optional plaintext listener that serves only the health service (kubelet gRPC probes speak no TLS). */
  private healthServer: Server | undefined;
  private readonly healthImpl: health.HealthServer;
  private healthStatus: HealthStatus = 'SERVING';
  private boundPort = 0;

  constructor(
    private readonly logger: Logger,
    private readonly serviceName: string,
    private readonly healthProbe?: () => Promise<boolean>,
  ) {
    const impl: health.HealthServer = {
      check: unary(logger, 'grpc.health.v1.Health/Check', async (req: health.HealthCheckRequest) => {
        if (req.service && req.service !== this.serviceName) {
          return { status: health.HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN };
        }
        let ok = this.healthStatus === 'SERVING';
        if (ok && this.healthProbe) ok = await this.healthProbe().catch(() => false);
        return {
          status: ok
            ? health.HealthCheckResponse_ServingStatus.SERVING
            : health.HealthCheckResponse_ServingStatus.NOT_SERVING,
        };
      }),
    };
    this.healthImpl = impl;
    this.server.addService(health.HealthService, impl);
  }

  /**
   * Serves only the standard health service, in plaintext, on another address: for probes that
   * cannot present a client certificate. It answers SERVING/NOT_SERVING and nothing else.
   */
  listenHealthOnly(address: string): Promise<number> {
    const server = new Server();
    server.addService(health.HealthService, this.healthImpl);
    this.healthServer = server;
    return new Promise((resolve, reject) => {
      server.bindAsync(address, serverCredentials(INSECURE), (err, port) => {
        if (err) return reject(err);
        this.logger.info({ address, port }, 'grpc health-only listener (plaintext)');
        resolve(port);
      });
    });
  }

  /** Adds a service whose calls {@link grpcStats} counts (the health service is not counted). */
  addService<I extends UntypedServiceImplementation>(definition: ServiceDefinition<I>, implementation: I): void {
    this.server.addService(definition, countingImplementation(definition, implementation));
  }

  setStatus(s: HealthStatus): void {
    this.healthStatus = s;
  }

  get port(): number {
    return this.boundPort;
  }

  /** Binds with the process's gRPC security (mutual TLS once configured) or the one given. */
  listen(address: string, security: GrpcSecurity = grpcSecurity()): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.bindAsync(address, serverCredentials(security), (err, port) => {
        if (err) return reject(err);
        this.boundPort = port;
        this.logger.info({ address, port, transport: security.kind }, 'grpc listening');
        resolve(port);
      });
    });
  }

  /** Stops accepting calls, lets in-flight calls finish for up to `graceMs`, then forces. */
  shutdown(graceMs = 5000): Promise<void> {
    this.healthStatus = 'NOT_SERVING';
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.healthServer?.forceShutdown();
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
