import {
  Agent,
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';

interface Upstream {
  name: string;
  port: number;
  /** In rotation: new connections may go to it (a ready endpoint of a Kubernetes Service). */
  ready: boolean;
  /** Connections handed to it so far. */
  connections: number;
}

/**
 * A round-robin TCP balancer in front of a service's replicas, standing in for a Kubernetes
 * Service: each new connection goes to the next ready replica. `remove()` takes a replica out of
 * rotation as the endpoints controller does when its pod starts terminating; connections already
 * open stay as they are (kube-proxy leaves established flows alone), so the replica's own
 * graceful shutdown decides what happens to them. A replica that refuses the connection (crashed,
 * not yet restarted) is skipped for the next one, as a readiness probe would have taken it out.
 */
export class Balancer {
  private server: Server | undefined;
  private readonly upstreams: Upstream[] = [];
  private readonly sockets = new Set<Socket>();
  private next = 0;
  port = 0;

  constructor(readonly service: string) {}

  /** Listens on `port` (0: any free one) on 127.0.0.1 and resolves the port. */
  async start(port = 0): Promise<number> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(port, '127.0.0.1', () => resolve());
    });
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    return this.port;
  }

  /** Adds a replica (ready) or puts a removed one back into rotation. */
  add(name: string, port: number): void {
    const known = this.upstreams.find((u) => u.name === name);
    if (known) {
      known.port = port;
      known.ready = true;
    } else this.upstreams.push({ name, port, ready: true, connections: 0 });
  }

  /** Takes a replica out of rotation; its open connections are left alone. */
  remove(name: string): void {
    const known = this.upstreams.find((u) => u.name === name);
    if (known) known.ready = false;
  }

  /** Connections each replica was handed so far. */
  connections(): Record<string, number> {
    return Object.fromEntries(this.upstreams.map((u) => [u.name, u.connections]));
  }

  private pick(skip: Set<string>): Upstream | undefined {
    const n = this.upstreams.length;
    for (let i = 0; i < n; i++) {
      const u = this.upstreams[(this.next + i) % n];
      if (u && u.ready && !skip.has(u.name)) {
        this.next = (this.next + i + 1) % n;
        return u;
      }
    }
    return undefined;
  }

  private accept(client: Socket): void {
    client.pause();
    this.sockets.add(client);
    client.once('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    const tried = new Set<string>();
    const attempt = (): void => {
      const target = this.pick(tried);
      if (!target) {
        client.destroy();
        return;
      }
      tried.add(target.name);
      const upstream = connect({ host: '127.0.0.1', port: target.port });
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        target.connections += 1;
        this.sockets.add(upstream);
        upstream.once('close', () => this.sockets.delete(upstream));
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
        const close = () => {
          client.destroy();
          upstream.destroy();
        };
        client.once('close', close);
        upstream.once('close', close);
      });
      upstream.on('error', () => {
        if (connected) upstream.destroy();
        else attempt();
      });
    };
    attempt();
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Headers that belong to one connection, not to the request or answer (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
}

interface HttpUpstream extends Upstream {
  agent: Agent;
}

/**
 * A round-robin HTTP reverse proxy in front of a gateway's replicas, standing in for an ingress
 * controller: each request goes to the next ready replica over a keep-alive pool of its own.
 * `remove()` takes a replica out of rotation (its endpoint left the Service); requests already sent
 * to it finish there, and its idle pooled connections are never used again. A request whose
 * connection is refused (a crashed replica) goes to the next replica, as it was never sent; one
 * cut off after it was sent is answered 502, as an ingress does.
 */
export class HttpBalancer {
  private server: HttpServer | undefined;
  private readonly upstreams: HttpUpstream[] = [];
  private next = 0;
  port = 0;

  constructor(readonly service: string) {}

  async start(port = 0): Promise<number> {
    this.server = createHttpServer((req, res) => void this.forward(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(port, '127.0.0.1', () => resolve());
    });
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    return this.port;
  }

  add(name: string, port: number): void {
    const known = this.upstreams.find((u) => u.name === name);
    if (known) {
      if (known.port !== port) {
        known.agent.destroy();
        known.agent = new Agent({ keepAlive: true });
      }
      known.port = port;
      known.ready = true;
    } else this.upstreams.push({ name, port, ready: true, connections: 0, agent: new Agent({ keepAlive: true }) });
  }

  remove(name: string): void {
    const known = this.upstreams.find((u) => u.name === name);
    if (known) known.ready = false;
  }

  /** Requests each replica was handed so far. */
  connections(): Record<string, number> {
    return Object.fromEntries(this.upstreams.map((u) => [u.name, u.connections]));
  }

  private pick(skip: Set<string>): HttpUpstream | undefined {
    const n = this.upstreams.length;
    for (let i = 0; i < n; i++) {
      const u = this.upstreams[(this.next + i) % n];
      if (u && u.ready && !skip.has(u.name)) {
        this.next = (this.next + i + 1) % n;
        return u;
      }
    }
    return undefined;
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = { ...endToEnd(req.headers), 'content-length': String(body.length) };
    const tried = new Set<string>();
    const fail = (status: number, error: string) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
    };
    const attempt = (): void => {
      const target = this.pick(tried);
      if (!target) return fail(502, `no ready replica of ${this.service}`);
      tried.add(target.name);
      let connected = false;
      const out = httpRequest({
        host: '127.0.0.1',
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        agent: target.agent,
      });
      out.once('socket', (socket: Socket) => {
        if (!socket.connecting) connected = true;
        else socket.once('connect', () => (connected = true));
      });
      out.once('response', (answer) => {
        target.connections += 1;
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
        answer.once('error', () => res.destroy());
      });
      out.once('error', (err: NodeJS.ErrnoException) => {
        // Refused: nothing was sent, another replica may take it. Otherwise the request may have run.
        if (!connected && err.code === 'ECONNREFUSED') attempt();
        else fail(502, `${this.service}: ${err.message}`);
      });
      out.end(body);
    };
    attempt();
  }

  async stop(): Promise<void> {
    for (const u of this.upstreams) u.agent.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
