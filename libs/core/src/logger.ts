import pino, { type Logger, type LoggerOptions } from 'pino';
import { activeTraceId, currentContext } from './context';

export type { Logger } from 'pino';

/** Path segments that are bearer secrets (single-use tokens); masked in logged URLs. */
const SECRET_PATH_SEGMENTS = [/(\/handoff\/)[^/?#]+/g];

/** A request URL fit for logs: secret path segments replaced by `***`. */
export function maskUrl(url: string): string {
  return SECRET_PATH_SEGMENTS.reduce((u, re) => u.replace(re, '$1***'), url);
}

interface LoggableRequest {
  method?: string;
  url?: string;
  host?: string;
  hostname?: string;
  ip?: string;
  socket?: { remoteAddress?: string; remotePort?: number };
}

export interface LoggerConfig {
  service: string;
  level?: string;
  pretty?: boolean;
  destination?: pino.DestinationStream;
}

/**
 * A pino logger whose every line carries the service name and, when the line is written inside a
 * request context, that request's ID (and trace ID, once OpenTelemetry is active).
 */
export function createLogger(cfg: LoggerConfig): Logger {
  const options: LoggerOptions = {
    level: cfg.level ?? 'info',
    base: { service: cfg.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: 'msg',
    mixin() {
      const ctx = currentContext();
      if (!ctx) return {};
      const out: Record<string, string> = { requestId: ctx.requestId };
      const traceId = activeTraceId();
      if (traceId) out.traceId = traceId;
      return out;
    },
    serializers: {
      // Same fields as fastify's default request serializer, with secrets masked in the URL.
      req: (req: LoggableRequest) => ({
        method: req.method,
        url: maskUrl(String(req.url ?? '')),
        host: req.host ?? req.hostname,
        remoteAddress: req.ip ?? req.socket?.remoteAddress,
        remotePort: req.socket?.remotePort,
      }),
    },
    redact: {
      paths: ['req.headers.authorization', '*.secret', '*.apiKey', '*.password', '*.webhookSecret'],
      censor: '[redacted]',
    },
  };
  return cfg.destination ? pino(options, cfg.destination) : pino(options);
}
