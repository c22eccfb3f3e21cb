import pino, { type Logger, type LoggerOptions } from 'pino';
import { activeTraceId, currentContext } from './context';

export type { Logger } from 'pino';

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
    redact: {
      paths: ['req.headers.authorization', '*.secret', '*.apiKey', '*.password', '*.webhookSecret'],
      censor: '[redacted]',
    },
  };
  return cfg.destination ? pino(options, cfg.destination) : pino(options);
}
