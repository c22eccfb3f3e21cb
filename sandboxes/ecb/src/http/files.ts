import type { FastifyInstance } from 'fastify';
import type { EcbSandbox } from '../domain/sandbox';
import { eurofxrefXml, type Publication } from '../domain/xml';

/** Where the ECB serves its reference-rate files; the sandbox uses the same paths. */
export const FILES_PATH = '/stats/eurofxref';

const FILES: Record<string, (s: EcbSandbox) => Publication[]> = {
  'eurofxref-hist-90d.xml': (s) => s.publications(),
  'eurofxref-daily.xml': (s) => s.latest(),
};

/** The reference-rate files: the last 90 publication days, and the latest one. */
export function fileRoutes(app: FastifyInstance, sandbox: EcbSandbox): void {
  for (const [name, publications] of Object.entries(FILES)) {
    app.get(`/${name}`, async (_req, reply) => {
      if (sandbox.outage.mode === 'down') {
        sandbox.record(name, 503);
        return reply.code(503).type('text/html; charset=utf-8').send('<html><body>Service Unavailable</body></html>\n');
      }
      sandbox.record(name, 200);
      return reply.type('text/xml').send(eurofxrefXml(publications(sandbox)));
    });
  }
}
