import { createServer, type Server } from 'node:http';

export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpAttr {
  key: string;
  value: Record<string, unknown>;
}

function attrValue(v: Record<string, unknown>): unknown {
  return v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
}

/** Minimal OTLP/HTTP JSON trace receiver, so tests can assert on the spans services export. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            resourceSpans?: {
              resource?: { attributes?: OtlpAttr[] };
              scopeSpans?: { spans?: Record<string, unknown>[] }[];
            }[];
          };
          for (const rs of body.resourceSpans ?? []) {
            const svc = rs.resource?.attributes?.find((a) => a.key === 'service.name');
            const service = String(svc ? attrValue(svc.value) : 'unknown');
            for (const ss of rs.scopeSpans ?? []) {
              for (const s of ss.spans ?? []) {
                const attributes: Record<string, unknown> = {};
                for (const a of (s.attributes as OtlpAttr[] | undefined) ?? []) attributes[a.key] = attrValue(a.value);
                this.spans.push({
                  service,
                  name: String(s.name),
                  traceId: String(s.traceId),
                  spanId: String(s.spanId),
                  parentSpanId: s.parentSpanId ? String(s.parentSpanId) : undefined,
                  kind: Number(s.kind ?? 0),
                  attributes,
                });
              }
            }
          }
        } catch {
          // protobuf payloads are ignored; services are configured for JSON
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    return this.url;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
