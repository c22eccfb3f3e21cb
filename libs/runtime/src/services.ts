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

/** Env variable holding a backend service's gRPC address, e.g. CHECKOUT_GRPC_ADDR. */
export function grpcAddrEnvName(service: BackendService): string {
  return `${service.replace(/-/g, '_').toUpperCase()}_GRPC_ADDR`;
}

/** Database/schema name of a service within a deployment namespace. */
export function databaseName(namespace: string, service: ServiceName): string {
  return `${namespace}_${service.replace(/-/g, '_')}`;
}
