import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface ReceivedIpn {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The body bytes exactly as received. */
  rawBody: Buffer;
  at: number;
}

/** What to answer: a status code, a redirect, or never answer (to provoke a timeout). */
export type IpnAnswer = number | { redirect: string } | 'hang';

/**
 * A merchant's IPN endpoint for tests: records every request and answers according to
 * `respond(request, indexForThatPath)`; the default answers 200.
 */
export class IpnReceiver {
  readonly received: ReceivedIpn[] = [];
  respond: (req: ReceivedIpn, nthForPath: number) => IpnAnswer = () => 200;
  private server: Server | undefined;
  private readonly hanging = new Set<ServerResponse>();

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rec: ReceivedIpn = {
          path: req.url ?? '/',
          method: req.method ?? '',
          headers: req.headers,
          rawBody: Buffer.concat(chunks),
          at: Date.now(),
        };
        this.received.push(rec);
        const nth = this.received.filter((r) => r.path === rec.path).length;
        const answer = this.respond(rec, nth);
        if (answer === 'hang') {
          this.hanging.add(res);
          return;
        }
        if (typeof answer === 'object') {
          res.writeHead(302, { location: answer.redirect }).end();
          return;
        }
        res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Requests for one path. */
  at(path: string): ReceivedIpn[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
