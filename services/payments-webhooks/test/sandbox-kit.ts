import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';

/** What every provider sandbox package exports to be run in a test. */
export interface SandboxPackage<C extends { host: string; port: number }> {
  loadSandboxConfig(env: NodeJS.ProcessEnv): C;
  buildServer(config: C): FastifyInstance;
}

/** A sandbox listening on loopback: its base URL and how to stop it. */
export interface RunningSandbox {
  url: string;
  close(): Promise<void>;
}

/**
 * The variables of a sandbox whose own variables start with `prefix` (e.g. `PROVIDER_A_SANDBOX`):
 * on loopback at a free port, plus `settings` named without the prefix (`{ WEBHOOK_RETRY_BASE_MS: '50' }`).
 */
export function sandboxEnv(prefix: string, settings: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries({ HOST: '127.0.0.1', PORT: '0', ...settings })) {
    env[`${prefix}_${name}`] = value;
  }
  return env;
}

/** Starts a provider sandbox, silent, configured by `env` (its own variables; a port of '0' picks a free one). */
export async function startSandbox<C extends { host: string; port: number }>(
  sandbox: SandboxPackage<C>,
  env: NodeJS.ProcessEnv,
): Promise<RunningSandbox> {
  const config = sandbox.loadSandboxConfig({ LOG_LEVEL: 'silent', ...env });
  const server = sandbox.buildServer(config);
  await server.listen({ host: config.host, port: config.port });
  return {
    url: `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    close: async () => {
      await server.close();
    },
  };
}

/** A sandbox for the tests of one file: started before them, closed after them; answers its base URL. */
export function sandboxForFile<C extends { host: string; port: number }>(
  sandbox: SandboxPackage<C>,
  env: NodeJS.ProcessEnv,
): () => string {
  let running: RunningSandbox | undefined;
  beforeAll(async () => {
    running = await startSandbox(sandbox, env);
  });
  afterAll(async () => {
    await running?.close();
  });
  return () => running?.url ?? '';
}

/** A JSON call at a sandbox with a bearer token (the provider's account or its sandbox controls); throws on an error answer. */
export async function sandboxCall(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as Record<string, any>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
