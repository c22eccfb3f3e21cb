import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadSandboxConfig } from '../src/config';
import { buildServer } from '../src/server';

export interface RunningSandbox {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

/** Starts the real server on an ephemeral loopback port, configured through the same env parsing as main. */
export async function startSandbox(now?: () => Date): Promise<RunningSandbox> {
  const config = loadSandboxConfig({ LOG_LEVEL: 'silent', ECB_SANDBOX_HOST: '127.0.0.1', ECB_SANDBOX_PORT: '0' });
  const app = buildServer(config, now ? { now } : {});
  await app.listen({ host: config.host, port: config.port });
  const port = (app.server.address() as AddressInfo).port;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/** JSON over HTTP. */
export async function call(
  sandbox: RunningSandbox,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/json' } : {},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
