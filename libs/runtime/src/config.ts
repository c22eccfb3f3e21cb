import { z } from 'zod';
import { baseConfigSchema, ConfigError, envBool, envInt, type Logger } from '@paymesh/core';
import { INSECURE, readMeshTls, type GrpcSecurity } from '@paymesh/grpc';
import { BACKEND_SERVICES, grpcAddrEnvName, type BackendService, type GrpcAddrKey } from './services';

/**
 * gRPC transport security of every mesh process (backends and gateways): the mesh CA and this
 * process's certificate and key as PEM files. Without them a process refuses to start, in every
 * mode, unless GRPC_INSECURE=true says plaintext on purpose.
 */
export const grpcSecurityConfigSchema = z.object({
  GRPC_TLS_CA_FILE: z.string().min(1).optional(),
  GRPC_TLS_CERT_FILE: z.string().min(1).optional(),
  GRPC_TLS_KEY_FILE: z.string().min(1).optional(),
  /** Plaintext, unauthenticated backend gRPC (only where something else secures the network). */
  GRPC_INSECURE: envBool(false),
});
export type GrpcSecurityConfig = z.infer<typeof grpcSecurityConfigSchema>;

/**
 * The gRPC security a process runs with, from its configuration: mutual TLS when the three files
 * are set; plaintext only with GRPC_INSECURE=true (logged as an error at every start, since any
 * workload that reaches the port can then act for any organization); otherwise a ConfigError.
 */
export function resolveGrpcSecurity(c: GrpcSecurityConfig, logger: Logger): GrpcSecurity {
  const [caFile, certFile, keyFile] = [c.GRPC_TLS_CA_FILE, c.GRPC_TLS_CERT_FILE, c.GRPC_TLS_KEY_FILE];
  const set = [caFile, certFile, keyFile].filter((f) => f !== undefined).length;
  if (c.GRPC_INSECURE) {
    if (set > 0) throw new ConfigError('GRPC_INSECURE=true contradicts GRPC_TLS_*_FILE; set one or the other');
    logger.error(
      { grpcInsecure: true },
      'GRPC_INSECURE=true: backend gRPC is PLAINTEXT and UNAUTHENTICATED; anything that reaches these ports can read secrets and act for any organization',
    );
    return INSECURE;
  }
  if (caFile === undefined || certFile === undefined || keyFile === undefined) {
    throw new ConfigError(
      'backend gRPC needs mutual TLS: set GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE (PEM), or GRPC_INSECURE=true to run plaintext on purpose',
    );
  }
  try {
    return { kind: 'mtls', tls: readMeshTls({ caFile, certFile, keyFile }) };
  } catch (err) {
    throw new ConfigError(err instanceof Error ? err.message : String(err));
  }
}

/** Config schema of a backend service: the shared keys plus its gRPC listen address and security. */
export function backendConfigSchema(service: BackendService) {
  return baseConfigSchema.merge(grpcSecurityConfigSchema).extend({
    /** Loopback by default: backends listen only where the gateways reach them. */
    GRPC_HOST: z.string().default('127.0.0.1'),
    GRPC_PORT: envInt(BACKEND_SERVICES[service].grpcPort),
    /**
     * Optional port of a plaintext listener that serves only gRPC health (Kubernetes `grpc:`
     * probes cannot present a client certificate). Unset: none.
     */
    GRPC_HEALTH_PORT: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined || v === '') return undefined;
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > 65535) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a port number' });
          return z.NEVER;
        }
        return n;
      }),
  });
}

const addr = (s: BackendService) => z.string().default(`127.0.0.1:${BACKEND_SERVICES[s].grpcPort}`);

/** Every backend, in the order of {@link BACKEND_SERVICES}: the downstream list of the gateways. */
export const ALL_BACKENDS = Object.keys(BACKEND_SERVICES) as BackendService[];

/**
 * gRPC addresses (`<SERVICE>_GRPC_ADDR`) of exactly the backends a service calls.
 *
 * Each service's config.ts exports its `downstream` list and builds its config with
 * `downstreamAddrsSchema(downstream)`: that list is the one place that says which backends a
 * service calls. Its code can only obtain addresses through {@link downstreamAddr}, which does not
 * type-check for a backend missing from the list, and the chart's NetworkPolicies are tested
 * against the same lists (test/deploy/helm.test.ts), so a new call needs a new edge there.
 */
export function downstreamAddrsSchema<const S extends readonly BackendService[]>(downstream: S) {
  const shape = Object.fromEntries(downstream.map((s) => [grpcAddrEnvName(s), addr(s)]));
  return z.object(shape as { [K in S[number] as GrpcAddrKey<K>]: ReturnType<typeof addr> });
}

/** The parsed addresses of the backends `S` (all of them by default). */
export type DownstreamAddrs<S extends BackendService = BackendService> = {
  readonly [K in S as GrpcAddrKey<K>]: string;
};

/**
 * Reads the address of `service` from a parsed config built with {@link downstreamAddrsSchema};
 * the config's type must include that service's address, i.e. the service must be declared.
 */
export function downstreamAddr<S extends BackendService>(config: NoInfer<DownstreamAddrs<S>>, service: S): string {
  const value = (config as Readonly<Record<string, string | undefined>>)[grpcAddrEnvName(service)];
  if (value === undefined)
    throw new ConfigError(
      `${grpcAddrEnvName(service)} is not configured: ${service} is not among this service's declared downstream backends`,
    );
  return value;
}
