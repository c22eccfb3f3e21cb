import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder the test controls: `pause()` drops every connection and refuses new ones, as a
 * datastore outage looks from the services' side; `resume()` lets traffic through again.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private open = true;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<number> {
    this.server = createServer((client) => {
      if (!this.open) {
        client.destroy();
        return;
      }
      const upstream = connect({ host: this.targetHost, port: this.targetPort });
      this.sockets.add(client);
      this.sockets.add(upstream);
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    return this.port;
  }

  pause(): void {
    this.open = false;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  resume(): void {
    this.open = true;
  }

  async stop(): Promise<void> {
    this.pause();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
