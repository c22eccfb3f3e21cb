/**
 * The mesh's backend services, their default gRPC ports and the event domain each one owns
 * (one JetStream stream per domain, hence per owning service).
 */
export const BACKEND_SERVICES = {
  checkout: { grpcPort: 50051, domain: 'checkout' },
  'payments-webhooks': { grpcPort: 50052, domain: 'payments' },
  billing: { grpcPort: 50053, domain: 'billing' },
  tax: { grpcPort: 50054, domain: 'tax' },
  recurring: { grpcPort: 50055, domain: 'recurring' },
  documents: { grpcPort: 50056, domain: 'documents' },
  'notifications-ipn': { grpcPort: 50057, domain: 'notifications' },
} as const;

export type BackendService = keyof typeof BACKEND_SERVICES;

export const GATEWAYS = {
  'gateway-admin': { domain: 'identity' },
  'gateway-public': { domain: 'portal' },
} as const;

export type ServiceName = BackendService | keyof typeof GATEWAYS;

type Underscored<S extends string> = S extends `${infer A}-${infer B}` ? `${A}_${Underscored<B>}` : S;

/** Name of the env variable holding a backend's gRPC address, as a type: `CHECKOUT_GRPC_ADDR`, … */
export type GrpcAddrKey<S extends BackendService> = `${Uppercase<Underscored<S>>}_GRPC_ADDR`;

/** Env variable holding a backend service's gRPC address, e.g. CHECKOUT_GRPC_ADDR. */
export function grpcAddrEnvName<S extends BackendService>(service: S): GrpcAddrKey<S> {
  return `${service.replace(/-/g, '_').toUpperCase()}_GRPC_ADDR` as GrpcAddrKey<S>;
}

/** Database/schema name of a service within a deployment namespace. */
export function databaseName(namespace: string, service: ServiceName): string {
  return `${namespace}_${service.replace(/-/g, '_')}`;
}
