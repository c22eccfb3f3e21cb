import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadSandboxConfig } from '../src/config';
import { buildServer, REST_BASE_PATH } from '../src/server';

export interface RunningSandbox {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

/** Starts the real server on an ephemeral loopback port, configured through the same env parsing as main. */
export async function startSandbox(): Promise<RunningSandbox> {
  const config = loadSandboxConfig({ LOG_LEVEL: 'silent', VIES_SANDBOX_HOST: '127.0.0.1', VIES_SANDBOX_PORT: '0' });
  const app = buildServer(config);
  await app.listen({ host: config.host, port: config.port });
  const port = (app.server.address() as AddressInfo).port;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

export interface Answer {
  status: number;
  body: any;
}

/** JSON over HTTP; `raw` sends the body as it is. */
export async function call(
  sandbox: RunningSandbox,
  method: string,
  path: string,
  body?: unknown,
  raw?: string,
): Promise<Answer> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {},
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** POST to one of the REST API's check endpoints. */
export function check(
  sandbox: RunningSandbox,
  body: unknown,
  endpoint: 'check-vat-number' | 'check-vat-test-service' = 'check-vat-number',
): Promise<Answer> {
  return call(sandbox, 'POST', `${REST_BASE_PATH}/${endpoint}`, body);
}
