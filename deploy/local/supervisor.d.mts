export const ROOT: string;
export const BACKENDS: [string, number][];
export const GATEWAYS: [string, number][];
export const SANDBOXES: [string, string, number, Record<string, number>?][];
export const CLIENT_CERT_NAME: string;
export const LOCAL_DEV_ENV: Readonly<{ NODE_ENV: string; PAYMESH_DEV_DEFAULTS: string; IPN_ALLOWED_TARGETS: string }>;
export function replicaNames(service: string, replicas?: number): string[];
export function freePort(): Promise<number>;
export function tcpReachable(host: string, port: number, timeoutMs?: number): Promise<boolean>;
export interface Mesh {
  ports: Record<string, number>;
  env: Record<string, string>;
  adminBaseUrl: string;
  publicBaseUrl: string;
  publicRootUrl: string;
  /** Hosted checkout address: payment URLs are `<this>/c/<sessionPublicId>`. */
  checkoutFrontendUrl: string;
  sandboxUrls: Record<string, string>;
  services: string[];
  clientSecurity: { kind: 'mtls'; tls: { ca: Buffer; cert: Buffer; key: Buffer } } | { kind: 'insecure' };
  pids(): Record<string, number>;
  tail(name: string): string[];
  /** Process names of a service's replicas (replica 1 first). */
  replicas(service: string): string[];
  kill(name: string): Promise<void>;
  /** SIGTERM, then waits for the exit (SIGKILL after graceMs: forced). */
  terminate(
    name: string,
    graceMs?: number,
  ): Promise<{ code: number | null; signal: string | null; forced: boolean; ms: number }>;
  restart(name: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}
export function startMesh(opts?: {
  /** An entry set to undefined removes that variable from the children's environment. */
  env?: Record<string, string | undefined>;
  ephemeralPorts?: boolean;
  onLine?: (service: string, line: string) => void;
  onExit?: (service: string, code: number | null, signal: string | null) => void;
  logDir?: string;
  readyTimeoutMs?: number;
  signal?: AbortSignal;
  certDir?: string;
  nodeArgs?: (service: string) => string[];
  /** Processes per backend and gateway (needs ephemeralPorts when more than 1). */
  replicas?: number;
  /** Port on 127.0.0.1 where callers reach a service (a balancer in front of its replicas). */
  fronts?: Record<string, number>;
}): Promise<Mesh>;
