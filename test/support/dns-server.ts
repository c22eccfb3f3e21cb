import { createSocket, type Socket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';

/** What the fake zone says about one name. */
export type ZoneEntry = { cname: string } | { a: string } | { txt: string[] } | { servfail: true };

/**
 * A tiny authoritative DNS server on 127.0.0.1 (UDP) for tests: answers CNAME, A and TXT questions from
 * an editable in-memory zone, NXDOMAIN for names it does not know. Packets are encoded and decoded
 * by `dns-packet`.
 */
export class TestDnsServer {
  readonly zone = new Map<string, ZoneEntry>();
  /** Names asked for, in order. */
  readonly queries: string[] = [];
  private socket: Socket | undefined;

  async start(): Promise<string> {
    const socket = createSocket('udp4');
    this.socket = socket;
    socket.on('message', (msg, rinfo) => {
      let query: dnsPacket.Packet;
      try {
        query = dnsPacket.decode(msg);
      } catch {
        return;
      }
      const reply = this.answer(query);
      socket.send(dnsPacket.encode(reply), rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => resolve());
    });
    const addr = socket.address();
    return `127.0.0.1:${addr.port}`;
  }

  private answer(query: dnsPacket.Packet): dnsPacket.Packet {
    const question = query.questions?.[0];
    const base = { id: query.id ?? 0, type: 'response' as const, questions: query.questions ?? [] };
    if (!question) return { ...base, flags: dnsPacket.AUTHORITATIVE_ANSWER | 1 };
    const name = question.name.toLowerCase().replace(/\.$/, '');
    this.queries.push(name);
    const entry = this.zone.get(name);
    // RCODE lives in the low four bits of the flags: 2 = SERVFAIL, 3 = NXDOMAIN.
    if (!entry) return { ...base, flags: dnsPacket.AUTHORITATIVE_ANSWER | 3 };
    if ('servfail' in entry) return { ...base, flags: 2 };
    if ('cname' in entry && (question.type === 'CNAME' || question.type === 'A')) {
      return {
        ...base,
        flags: dnsPacket.AUTHORITATIVE_ANSWER,
        answers: [{ type: 'CNAME', name: question.name, ttl: 60, class: 'IN', data: entry.cname }],
      };
    }
    if ('a' in entry && question.type === 'A') {
      return {
        ...base,
        flags: dnsPacket.AUTHORITATIVE_ANSWER,
        answers: [{ type: 'A', name: question.name, ttl: 60, class: 'IN', data: entry.a }],
      };
    }
    if ('txt' in entry && question.type === 'TXT') {
      return {
        ...base,
        flags: dnsPacket.AUTHORITATIVE_ANSWER,
        answers: entry.txt.map((data) => ({
          type: 'TXT' as const,
          name: question.name,
          ttl: 60,
          class: 'IN' as const,
          data,
        })),
      };
    }
    // The name exists but has no record of the asked type (NODATA).
    return { ...base, flags: dnsPacket.AUTHORITATIVE_ANSWER };
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}
