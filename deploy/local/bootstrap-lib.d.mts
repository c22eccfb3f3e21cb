export interface BootstrapResult {
  organizationId: string;
  siteId: string;
  apiKey: string;
  webhookSigningSecret: string;
  adminBaseUrl: string;
  publicBaseUrl: string;
  [extra: string]: unknown;
}
export function bootstrap(o: {
  adminBaseUrl: string;
  publicBaseUrl: string;
  systemApiKey: string;
  name?: string;
  email?: string;
  mode?: 'live' | 'test';
  extras?: (ctx: BootstrapResult & { call: (method: string, url: string, token: string, body?: unknown, headers?: Record<string, string>) => Promise<unknown> }) => Promise<Record<string, unknown>>;
}): Promise<BootstrapResult>;
