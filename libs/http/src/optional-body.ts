import type { FastifyRequest, RouteOptions } from 'fastify';
import type { ZodTypeAny } from 'zod';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's JSON body may be left out: no body, an empty body sent as application/json, or
     * JSON `null` reach the route as `{}`. Set for every route whose body schema accepts `{}` (see
     * {@link markOptionalBody}).
     */
    optionalBody?: boolean;
  }
}

/** OpenAPI extension on an operation whose request body may be left out (see {@link openApiOptionalBodies}). */
export const OPTIONAL_BODY_EXTENSION = 'x-optional-body';

const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Whether a request body may be left out: no schema at all (the route reads none), or one that
 * accepts `{}` (every field optional). What the spec lists as "all optional" needs no body.
 */
export function bodyMayBeAbsent(schema: ZodTypeAny | undefined): boolean {
  return schema === undefined || schema.safeParse({}).success;
}

/**
 * `onRoute` hook (or a direct call on a route's options): marks a POST/PUT/PATCH route whose body
 * may be absent with `config.optionalBody`, and its schema with the OpenAPI extension, so one rule
 * decides for every route of a gateway. A route that already says `optionalBody: false` (a file
 * upload) is left alone.
 */
export function markOptionalBody(route: Pick<RouteOptions, 'method' | 'schema' | 'config'>): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.some((m) => WRITE_METHODS.has(m))) return;
  const config = (route.config ?? {}) as { optionalBody?: boolean };
  if (config.optionalBody === false) return;
  const body = (route.schema as { body?: unknown } | undefined)?.body;
  // Only zod schemas can be asked; a JSON-schema body (none here) is left required.
  if (body !== undefined && !isZod(body)) return;
  if (!bodyMayBeAbsent(body)) return;
  route.config = { ...config, optionalBody: true } as RouteOptions['config'];
  if (body !== undefined && route.schema) (route.schema as Record<string, unknown>)[OPTIONAL_BODY_EXTENSION] = true;
}

function isZod(value: unknown): value is ZodTypeAny {
  return (
    typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}

/** Whether the request's route takes an absent body. */
export function routeTakesAbsentBody(req: FastifyRequest): boolean {
  return (req.routeOptions.config as { optionalBody?: boolean } | undefined)?.optionalBody === true;
}

/**
 * `transformObject` step of the OpenAPI document: operations carrying the extension get
 * `requestBody.required: false` (@fastify/swagger always writes true) and lose the marker.
 */
export function openApiOptionalBodies<D extends { paths?: object }>(doc: D): D {
  for (const item of Object.values((doc.paths ?? {}) as Record<string, object | undefined>)) {
    for (const op of Object.values(item ?? {}) as unknown[]) {
      if (typeof op !== 'object' || op === null || !(OPTIONAL_BODY_EXTENSION in op)) continue;
      const o = op as Record<string, unknown> & { requestBody?: { required?: boolean } };
      delete o[OPTIONAL_BODY_EXTENSION];
      if (o.requestBody) o.requestBody.required = false;
    }
  }
  return doc;
}
