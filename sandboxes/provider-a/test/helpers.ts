import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import Stripe from 'stripe';
import { waitFor as kitWaitFor } from '../../../test/support/kit';
import { loadSandboxConfig } from '../src/config';
import { buildServer } from '../src/server';

export interface RunningSandbox {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the real server on an ephemeral loopback port, configured through the same env parsing as main. */
export async function startSandbox(env: Record<string, string> = {}): Promise<RunningSandbox> {
  const config = loadSandboxConfig({
    LOG_LEVEL: 'silent',
    PROVIDER_A_SANDBOX_HOST: '127.0.0.1',
    PROVIDER_A_SANDBOX_PORT: '0',
    PROVIDER_A_SANDBOX_WEBHOOK_RETRY_BASE_MS: '50',
    PROVIDER_A_SANDBOX_WEBHOOK_TIMEOUT_MS: '2000',
    ...env,
  });
  const app = buildServer(config);
  await app.listen({ host: config.host, port: config.port });
  const port = (app.server.address() as AddressInfo).port;
  return { app, url: `http://127.0.0.1:${port}`, port, close: () => app.close() };
}

/** A fresh account: data is scoped per secret key. */
export function newApiKey(): string {
  return `sk_test_${randomBytes(12).toString('hex')}`;
}

/** The official SDK pointed at the sandbox. */
export function sdk(sandbox: RunningSandbox, apiKey = newApiKey()): Stripe {
  return new Stripe(apiKey, {
    host: '127.0.0.1',
    port: sandbox.port,
    protocol: 'http',
    maxNetworkRetries: 0,
    telemetry: false,
  });
}

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** Local webhook receiver: records every request; `respond` decides the status code (default 200). */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  respond: (req: { headers: IncomingHttpHeaders; body: string; index: number }) => number = () => 200;
  /** Delay before answering, to show deliveries do not hold up API responses. */
  delayMs = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = this.respond({ headers: req.headers, body, index: this.requests.length });
        this.requests.push({ headers: req.headers, body, status });
        setTimeout(
          () => res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope'),
          this.delayMs,
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  /** Parsed events received so far (optionally of one type). */
  events(type?: string): Array<{ id: string; type: string; data: { object: Record<string, unknown> } }> {
    return this.requests
      .map((r) => JSON.parse(r.body) as { id: string; type: string; data: { object: Record<string, unknown> } })
      .filter((e) => type === undefined || e.type === type);
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

/** Polls until `check` returns a truthy value or the time is up (the shared kit's `waitFor`). */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  return kitWaitFor(check, { timeoutMs, what });
}

/** Raw HTTP call with a secret key, for things the SDK hides (headers, sandbox controls). */
export async function call(
  sandbox: RunningSandbox,
  method: string,
  path: string,
  opts: { apiKey?: string; form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let body: string | undefined;
  if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  } else if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  }
  const res = await fetch(`${sandbox.url}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
