import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { httpDrainConfigSchema, httpDrainPlugin } from './drain';

function get(port: number, path: string, agent: Agent): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('graceful HTTP drain', () => {
  let app: FastifyInstance | undefined;
  const agents: Agent[] = [];
  afterEach(async () => {
    for (const a of agents) a.destroy();
    await app?.close();
  });

  it('answers in-flight and new requests while draining, each closing its connection, and ends once none is open', async () => {
    app = Fastify({ return503OnClosing: false });
    await app.register(httpDrainPlugin);
    let entered: () => void = () => undefined;
    const slowEntered = new Promise<void>((resolve) => (entered = resolve));
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    app.get('/fast', async () => ({ ok: true }));
    app.get('/slow', async () => {
      entered();
      await released;
      return { ok: true };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    const oneShot = new Agent({ keepAlive: false });
    agents.push(keepAlive, oneShot);

    const before = await get(port, '/fast', keepAlive);
    expect(before.status).toBe(200);
    expect(before.headers.connection).toBe('keep-alive');

    const slow = get(port, '/slow', oneShot);
    await slowEntered;
    expect(app.httpDrain.inFlight).toBe(1);
    const drained = app.httpDrain.drain(10_000);
    expect(app.httpDrain.draining).toBe(true);

    // The idle keep-alive connection is still answered, and told to close.
    const during = await get(port, '/fast', keepAlive);
    expect(during.status).toBe(200);
    expect(during.headers.connection).toBe('close');

    release();
    expect((await slow).status).toBe(200);
    const result = await drained;
    expect(result.openConnections).toBe(0);
    expect(result.waitedMs).toBeLessThan(10_000);
    expect(app.httpDrain.inFlight).toBe(0);
  });

  it('gives up waiting after the drain time when a client keeps an idle connection open', async () => {
    app = Fastify({ return503OnClosing: false });
    await app.register(httpDrainPlugin);
    app.get('/fast', async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const keepAlive = new Agent({ keepAlive: true });
    agents.push(keepAlive);
    expect((await get(port, '/fast', keepAlive)).status).toBe(200);
    const result = await app.httpDrain.drain(200);
    expect(result.openConnections).toBe(1);
    expect(result.waitedMs).toBeGreaterThanOrEqual(200);
  });

  it('reads HTTP_DRAIN_MS with a default of 5 s and refuses nonsense', () => {
    expect(httpDrainConfigSchema.parse({}).HTTP_DRAIN_MS).toBe(5000);
    expect(httpDrainConfigSchema.parse({ HTTP_DRAIN_MS: '0' }).HTTP_DRAIN_MS).toBe(0);
    expect(() => httpDrainConfigSchema.parse({ HTTP_DRAIN_MS: '-1' })).toThrow();
    expect(() => httpDrainConfigSchema.parse({ HTTP_DRAIN_MS: 'soon' })).toThrow();
  });
});
