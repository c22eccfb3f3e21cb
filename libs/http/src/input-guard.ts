import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ValidationError } from '@paymesh/core';
import { routeTakesAbsentBody } from './optional-body';
import { isCleanText, UNSAFE_TEXT_MESSAGE } from './schemas';

/** Deepest JSON nesting a request body may have; real payloads stay under 10 levels. */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether JSON text nests arrays/objects deeper than `max`. One pass over the characters without
 * recursion or parsing, so a hostile body is refused before anything recursive touches it
 * (schema validation, JSON.stringify on the way to a service).
 */
export function jsonDepthExceeds(json: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** Where a request part holds a value no route accepts, and why. */
export interface UnsafeInput {
  path: string;
  problem: string;
}

/**
 * The first string or key in `value` holding NUL or an unpaired surrogate, or number that is
 * not finite (`1e400` parses to Infinity), with its path (`body.items.0.name`); undefined when
 * there is none. Iterative, so depth cannot overflow the stack; Buffers (raw webhook bodies) are
 * not text and are skipped.
 */
export function findUnsafeInput(value: unknown, where: string): UnsafeInput | undefined {
  const stack: [unknown, string][] = [[value, where]];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      if (!isCleanText(v)) return { path, problem: UNSAFE_TEXT_MESSAGE };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path, problem: 'number out of range' };
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, `${path}.${i}`]));
    } else if (typeof v === 'object' && v !== null && !Buffer.isBuffer(v)) {
      for (const [k, item] of Object.entries(v)) {
        if (!isCleanText(k)) return { path: `${path} (a key)`, problem: UNSAFE_TEXT_MESSAGE };
        stack.push([item, `${path}.${k}`]);
      }
    }
  }
  return undefined;
}

/**
 * Whether a raw query string decodes as UTF-8 (fastify's parser keeps undecodable values as
 * they are, which would pass them on as text nobody sent).
 */
export function isPercentEncoded(query: string): boolean {
  if (!query.includes('%')) return true;
  try {
    decodeURIComponent(query.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
}

/**
 * Input checks every gateway route gets before its own schema runs:
 * - on routes marked `optionalBody` (see optional-body.ts), no body, an empty JSON body and JSON
 *   `null` become `{}`;
 * - JSON bodies nested deeper than MAX_JSON_DEPTH are refused (400) before they are parsed;
 * - query strings that are not validly percent-encoded UTF-8 are refused (400);
 * - path parameters, query values and JSON bodies holding NUL or unpaired surrogates anywhere
 *   (also in fields a route passes through opaquely), or numbers beyond a double, are refused
 *   (400), so they never reach a service or the datastore.
 * Runs after onRequest hooks: authentication still comes first on the Admin API.
 */
export const inputGuardPlugin = fp(
  async (app: FastifyInstance, opts: { maxDepth?: number }) => {
    const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
    // Fastify's own JSON parser (prototype-poisoning protection, empty-body error) after the depth check.
    const parseJson = app.getDefaultJsonParser('error', 'error');
    // JSON only: a text/plain body would otherwise reach the routes as a string (and lets
    // browsers skip the CORS preflight); it now answers 415 like any other media type.
    app.removeContentTypeParser(['application/json', 'text/plain']);
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      // A route whose body may be left out takes an empty one too (clients send the media type anyway).
      if (text.trim() === '' && routeTakesAbsentBody(req)) {
        done(null, undefined);
        return;
      }
      if (jsonDepthExceeds(text, maxDepth)) {
        done(new ValidationError(`body: JSON nested deeper than ${maxDepth} levels`), undefined);
        return;
      }
      parseJson(req, text, done);
    });
    app.addHook('preValidation', async (req) => {
      // No body (or JSON null) where the body may be left out is the empty object, before any schema runs.
      if ((req.body === undefined || req.body === null) && routeTakesAbsentBody(req)) req.body = {};
      const query = req.url.indexOf('?');
      if (query >= 0 && !isPercentEncoded(req.url.slice(query + 1))) {
        throw new ValidationError('querystring: not validly percent-encoded UTF-8');
      }
      const parts: [unknown, string][] = [
        [req.params, 'params'],
        [req.query, 'querystring'],
        [req.body, 'body'],
      ];
      for (const [value, where] of parts) {
        const bad = findUnsafeInput(value, where);
        if (bad) throw new ValidationError(`${bad.path}: ${bad.problem}`);
      }
    });
  },
  { name: 'paymesh-input-guard' },
);
