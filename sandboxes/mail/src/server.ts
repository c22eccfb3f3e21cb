import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '@paymesh/core';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { SMTPServer } from 'smtp-server';
import type { MailSandboxConfig } from './config';
import { Inbox } from './domain/inbox';
import { apiRoutes } from './http/api';
import { webRoutes } from './http/web';
import { buildSmtpServer } from './smtp';

export interface MailCatcher {
  inbox: Inbox;
  http: FastifyInstance;
  smtp: SMTPServer;
  /** Starts both listeners; resolves with the ports actually bound. */
  listen(): Promise<{ port: number; smtpPort: number }>;
  close(): Promise<void>;
}

export interface BuildOptions {
  logger?: Logger;
}

/** The catcher's SMTP and HTTP servers sharing one inbox, not yet listening. */
export function buildMailCatcher(config: MailSandboxConfig, options: BuildOptions = {}): MailCatcher {
  const logger = options.logger ?? createLogger({ service: 'sandbox-mail', level: config.logLevel });
  const inbox = new Inbox(config.maxMessages);
  const smtp = buildSmtpServer(inbox, logger);
  let smtpPort = config.smtpPort;
  const http: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => `req_${randomBytes(8).toString('hex')}`,
    requestIdHeader: false,
  });
  http.get('/health', async () => ({ status: 'ok' }));
  void http.register(async (scope) => webRoutes(scope, inbox, () => smtpPort));
  void http.register(async (scope) => apiRoutes(scope, inbox), { prefix: '/_sandbox' });

  return {
    inbox,
    http,
    smtp,
    async listen() {
      await new Promise<void>((resolve, reject) => {
        smtp.once('error', reject);
        smtp.listen(config.smtpPort, config.host, () => {
          smtp.off('error', reject);
          resolve();
        });
      });
      const addr = smtp.server.address();
      smtpPort = addr && typeof addr === 'object' ? addr.port : config.smtpPort;
      await http.listen({ host: config.host, port: config.port });
      const httpAddr = http.server.address();
      return { port: httpAddr && typeof httpAddr === 'object' ? httpAddr.port : config.port, smtpPort };
    },
    async close() {
      await Promise.all([http.close(), new Promise<void>((resolve) => smtp.close(() => resolve()))]);
    },
  };
}
