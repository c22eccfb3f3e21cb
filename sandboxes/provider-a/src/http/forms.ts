import type { FastifyInstance } from 'fastify';
import qs from 'qs';

/** Bracket notation as sent by the provider SDKs: `metadata[k]=v`, `list[0]=a`, `list[]=a`, nested hashes. */
export const QS_OPTIONS: qs.IParseOptions = {
  depth: 8,
  arrayLimit: 1000,
  parameterLimit: 10_000,
  allowPrototypes: false,
  plainObjects: true,
};

export function parseForm(body: string): Record<string, unknown> {
  return qs.parse(body, QS_OPTIONS) as Record<string, unknown>;
}

/** Form bodies parsed with qs; JSON bodies may be empty (treated as {}). */
export function registerBodyParsers(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseForm(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, {});
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      const err = new Error('Invalid JSON body') as Error & { statusCode: number };
      err.statusCode = 400;
      done(err, undefined);
    }
  });
}
