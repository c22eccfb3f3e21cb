export const ROOT: string;
export const BACKENDS: [string, number][];
export const GATEWAYS: [string, number][];
export const SANDBOXES: [string, string, number][];
export function freePort(): Promise<number>;
export function tcpReachable(host: string, port: number, timeoutMs?: number): Promise<boolean>;
export interface Mesh {
  ports: Record<string, number>;
  env: Record<string, string>;
  adminBaseUrl: string;
  publicBaseUrl: string;
  publicRootUrl: string;
  sandboxUrls: Record<string, string>;
  services: string[];
  tail(name: string): string[];
  kill(name: string): Promise<void>;
  restart(name: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}
export function startMesh(opts?: {
  env?: Record<string, string>;
  ephemeralPorts?: boolean;
  onLine?: (service: string, line: string) => void;
  onExit?: (service: string, code: number | null, signal: string | null) => void;
  logDir?: string;
  readyTimeoutMs?: number;
  signal?: AbortSignal;
}): Promise<Mesh>;
