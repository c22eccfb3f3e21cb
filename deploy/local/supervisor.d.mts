export const ROOT: string;
export const BACKENDS: [string, number][];
export const GATEWAYS: [string, number][];
export const SANDBOXES: [string, string, number, Record<string, number>?][];
export const CLIENT_CERT_NAME: string;
export const LOCAL_DEV_ENV: Readonly<{ NODE_ENV: string; PAYMESH_DEV_DEFAULTS: string; IPN_ALLOWED_TARGETS: string }>;
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
  /** The merchant dashboard served by gateway-admin (`http://localhost:<admin port>/app/` unless DASHBOARD_URL says otherwise). */
  dashboardUrl: string;
  sandboxUrls: Record<string, string>;
  services: string[];
  clientSecurity: { kind: 'mtls'; tls: { ca: Buffer; cert: Buffer; key: Buffer } } | { kind: 'insecure' };
  pids(): Record<string, number>;
  tail(name: string): string[];
  kill(name: string): Promise<void>;
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
}): Promise<Mesh>;
