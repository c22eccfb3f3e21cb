import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../libs/core/src/logger';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import type { Clients } from '../../services/gateway-public/src/clients';
import { buildPublicServer } from '../../services/gateway-public/src/http/server';
import { publicApiRoutes } from '../../services/gateway-public/src/http/routes';
import type { PortalDeps } from '../../services/gateway-public/src/portal/deps';
import { eventually, PG_URL, startTestMesh, type TestMesh } from '../support/mesh';

/**
 * Black-box fuzzing of every route of both gateways with generated bad paths, queries and bodies
 * (deterministic seed, bounded count). Whatever arrives: never a 5xx, errors in the envelope, an
 * X-Request-ID on every answer, and nothing written to the store.
 */
const SEED = 0x5eed_2026;
const CASES_PER_ROUTE = 30;
const CONCURRENCY = 4;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface FuzzRoute {
  gateway: 'admin' | 'public';
  method: Method;
  /** Fastify syntax: `/sites/:id`, relative to the gateway root (`/api/v1/...`, `/hooks/...`, `/health`). */
  path: string;
  bodyFields: string[];
  queryFields: string[];
  /** A write whose body may be left out (no body, an empty JSON body): an empty body is no bad input there. */
  bodyOptional: boolean;
}

interface FuzzCase {
  route: FuzzRoute;
  label: string;
  url: string;
  body?: string;
  contentType?: string;
  /** The input is wrong whatever the route does with it: the answer must be a 4xx. */
  mustReject: boolean;
}

// ---------------------------------------------------------------- route discovery

interface OpenApiOperation {
  parameters?: { in: string; name: string }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
}
interface JsonSchema {
  properties?: Record<string, unknown>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

function propertyNames(s: JsonSchema | undefined): string[] {
  if (!s) return [];
  const nested = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].flatMap(propertyNames);
  return [...new Set([...Object.keys(s.properties ?? {}), ...nested])];
}

/** Admin routes from the OpenAPI document the running gateway serves. */
async function adminRoutes(adminBaseUrl: string): Promise<FuzzRoute[]> {
  const res = await fetch(`${adminBaseUrl}/docs/json`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as { paths: Record<string, Record<string, OpenApiOperation>> };
  const routes: FuzzRoute[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const m = method.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(m)) continue;
      routes.push({
        gateway: 'admin',
        method: m as Method,
        path: path.replace(/\{([^}]+)\}/g, ':$1'),
        bodyFields: propertyNames(op.requestBody?.content?.['application/json']?.schema),
        queryFields: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        // No documented body (the route reads none), or one documented as not required.
        bodyOptional:
          m !== 'GET' && m !== 'DELETE' && (op.requestBody === undefined || op.requestBody.required === false),
      });
    }
  }
  return routes;
}

/** Public routes as the gateway registers them (the server built in-process, never listening). */
async function publicRoutes(): Promise<FuzzRoute[]> {
  const seen: { method: string; url: string; optionalBody: boolean }[] = [];
  const clients = {} as Clients;
  // Registration only reads the route wiring; the buyer portal routes are fuzzed too.
  const routeOptions = {
    clients,
    mainFrontendOrigin: 'https://checkout.fuzz.example',
    portal: { clients } as PortalDeps,
  };
  const app = await buildPublicServer({
    logger: createLogger({ service: 'fuzz', level: 'silent' }),
    bodyLimit: 1024 * 1024,
    healthChecks: () => [],
    clients,
    apiRoutes: publicApiRoutes(routeOptions),
    onRoute: (r) =>
      seen.push(
        ...(Array.isArray(r.method) ? r.method : [r.method]).map((method) => ({
          method,
          url: r.url,
          optionalBody: r.optionalBody,
        })),
      ),
  });
  await app.ready();
  await app.close();
  const bodyFields = [
    'sessionPublicId',
    'providerId',
    'billingAddress',
    'name',
    'email',
    'country',
    'vatId',
    'organizationId',
    'code',
    'token',
    'reason',
  ];
  return seen
    .filter((r) => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && !r.url.includes('*'))
    .map((r) => ({
      gateway: 'public' as const,
      method: r.method as Method,
      path: r.url,
      bodyFields,
      queryFields: [],
      bodyOptional: r.optionalBody,
    }));
}

// ---------------------------------------------------------------- generators

const hex24 = fc.stringMatching(/^[0-9a-f]{24}$/);
/** Strings no route may accept: NUL or an unpaired surrogate somewhere. */
const poisonText = fc
  .tuple(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('\u0000', '\uD800', '\uDFFF', '\uDBFF', 'a\u0000b'),
    fc.string({ maxLength: 8 }),
  )
  .map(([a, bad, b]) => a + bad + b);
/** Numbers no field may accept (out of int32, out of the money range, beyond safe integers). */
const outOfRange = fc.constantFrom(3_000_000_000, -3_000_000_000, 1e20, -1e20, 2 ** 53 + 2, 2 ** 31, -(2 ** 31) - 1);
/** Values of the wrong type or size for any field. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: outOfRange, weight: 4 },
  { arbitrary: fc.constant(0.5), weight: 1 },
  { arbitrary: fc.array(outOfRange, { minLength: 1, maxLength: 3 }), weight: 1 },
  {
    arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), outOfRange, { minKeys: 1, maxKeys: 3 }),
    weight: 1,
  },
  { arbitrary: fc.constant('x'.repeat(1024 * 1024)), weight: 1 },
);
const deepValue = fc.constantFrom(33, 100, 10_000).map((depth) => ({ depth }));

/** Raw bodies that are wrong before any route sees them. */
const rawBodies: { label: string; body: string; contentType?: string }[] = [
  { label: 'bad JSON', body: '{"name": ' },
  { label: 'empty JSON body', body: '' },
  { label: 'Infinity', body: '{"amount":1e400}' },
  { label: 'proto poisoning', body: '{"__proto__":{"admin":true}}' },
  { label: 'deep array', body: '['.repeat(50_000) + ']'.repeat(50_000) },
  { label: 'JSON with NUL escape', body: '{"name":"a\\u0000"}' },
  { label: 'JSON with lone surrogate escape', body: '{"name":"\\udc00"}' },
  { label: 'text/plain', body: 'name=x', contentType: 'text/plain' },
  { label: 'form', body: 'name=x', contentType: 'application/x-www-form-urlencoded' },
  { label: 'xml', body: '<a/>', contentType: 'application/xml' },
];

const badSegments: { seg: string; label: string }[] = [
  { seg: '%00', label: 'NUL' },
  { seg: 'a%00b', label: 'inner NUL' },
  { seg: '%FF', label: 'undecodable' },
  { seg: '%ED%A0%80', label: 'encoded lone surrogate' },
  { seg: '%C0%AF', label: 'overlong UTF-8' },
  { seg: '%E0%A4%A', label: 'truncated escape' },
  { seg: 'x'.repeat(150), label: 'over-long' },
];
const badQueryValues = [
  '%00',
  'x%00',
  '%FF',
  '%ED%B0%80',
  '%',
  '-1',
  '0',
  '3000000000',
  '1e400',
  'NaN',
  'x'.repeat(4000),
  '%5B%5D',
];
const rejectedQueryValues = new Set(['%00', 'x%00', '%FF', '%ED%B0%80', '%']);

/** JSON text of an object, with `{depth}` placeholders expanded to nesting of that depth. */
function toJson(value: Record<string, unknown>): { text: string; deep: boolean } {
  let deep = false;
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'object' && v !== null && 'depth' in v && Object.keys(v).length === 1) {
      deep = true;
      return `@@DEEP${(v as { depth: number }).depth}@@`;
    }
    return v;
  }).replace(/"@@DEEP(\d+)@@"/g, (_m, d: string) => '{"a":'.repeat(Number(d)) + '1' + '}'.repeat(Number(d)));
  return { text, deep };
}

interface Ids {
  organizationId: string;
  siteId: string;
}

function caseArbitrary(route: FuzzRoute, ids: Ids): fc.Arbitrary<FuzzCase> {
  const params = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
  // Real identifiers only with input that must be refused; otherwise random ones (nothing to change).
  const fill = (real: boolean) =>
    fc.tuple(...params.map(() => hex24)).map((random) => {
      let i = 0;
      return route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
        const r = random[i++]!;
        if (name === 'orgId') return ids.organizationId;
        if (real && name === 'siteId') return ids.siteId;
        return r;
      });
    });
  const fields = [...route.bodyFields, 'unexpected'];
  const queryKeys = [...route.queryFields, 'page', 'limit', 'x'];
  const arbs: fc.Arbitrary<FuzzCase>[] = [];

  if (params.length > 0) {
    arbs.push(
      fc.tuple(fill(false), fc.constantFrom(...params), fc.constantFrom(...badSegments)).map(([path, param, bad]) => {
        // Replace the chosen parameter's segment of the filled path with the bad segment.
        const idx = params.indexOf(param);
        const segs = route.path.split('/');
        const filled = path.split('/');
        let k = 0;
        for (let s = 0; s < segs.length; s++) if (segs[s]!.startsWith(':') && k++ === idx) filled[s] = bad.seg;
        return { route, label: `path ${param}=${bad.label}`, url: filled.join('/'), mustReject: true };
      }),
    );
  }
  arbs.push(
    fc
      .tuple(fill(false), fc.constantFrom(...queryKeys), fc.constantFrom(...badQueryValues))
      .map(([path, key, value]) => ({
        route,
        label: `query ${key}=${value.slice(0, 20)}`,
        url: `${path}?${encodeURIComponent(key)}=${value}`,
        mustReject: rejectedQueryValues.has(value),
      })),
  );
  if (hasBody) {
    const poisonBody = fc
      .tuple(
        fc.dictionary(fc.constantFrom(...fields), fc.oneof(wrongValue, poisonText), { maxKeys: 3 }),
        fc.constantFrom(...fields),
        fc.oneof(
          poisonText,
          deepValue,
          fc.array(poisonText, { minLength: 1, maxLength: 2 }),
          fc.dictionary(fc.string({ maxLength: 4 }), poisonText, { minKeys: 1, maxKeys: 2 }),
        ),
      )
      .map(([rest, field, bad]) => ({ ...rest, [field]: bad }));
    const typedBody = fc
      .tuple(
        fc.constantFrom(...fields),
        wrongValue,
        fc.dictionary(fc.constantFrom(...fields), wrongValue, { maxKeys: 3 }),
      )
      .map(([field, value, rest]) => ({ ...rest, [field]: value }));
    arbs.push(
      fc.tuple(fill(true), poisonBody).map(([url, body]) => {
        const { text, deep } = toJson(body);
        return {
          route,
          label: `poisoned body${deep ? ' (deep)' : ''} ${text.slice(0, 60)}`,
          url,
          body: text,
          mustReject: true,
        };
      }),
      fc.tuple(fill(false), typedBody).map(([url, body]) => {
        const { text } = toJson(body);
        return { route, label: `typed body ${text.slice(0, 60)}`, url, body: text, mustReject: false };
      }),
      // An empty JSON body is what "no body" looks like with the media type sent: fine where the body is optional.
      fc
        .tuple(
          fill(true),
          fc.constantFrom(...rawBodies.filter((r) => !(route.bodyOptional && r.label === 'empty JSON body'))),
        )
        .map(([url, raw]) => ({
          route,
          label: `raw body: ${raw.label}`,
          url,
          body: raw.body,
          ...(raw.contentType ? { contentType: raw.contentType } : {}),
          mustReject: true,
        })),
    );
  }
  return fc.oneof(...arbs);
}

// ---------------------------------------------------------------- store snapshot

/** Row count of every table in the namespace's schemas (the outbox aside: its relay works on its own). */
async function rowCounts(client: pg.Client, namespace: string): Promise<Record<string, number>> {
  const tables = await client.query<{ s: string; t: string }>(
    `SELECT table_schema AS s, table_name AS t FROM information_schema.tables
      WHERE table_schema LIKE $1 AND table_type = 'BASE TABLE' AND table_name <> '_outbox' ORDER BY 1, 2`,
    [`${namespace}\\_%`],
  );
  const out: Record<string, number> = {};
  for (const { s, t } of tables.rows) {
    const r = await client.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM "${s.replace(/"/g, '""')}"."${t.replace(/"/g, '""')}"`,
    );
    out[`${s}.${t}`] = Number(r.rows[0]?.n ?? 0);
  }
  return out;
}

// ---------------------------------------------------------------- the test

describe('fuzzing both gateways', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let db: pg.Client;

  beforeAll(async () => {
    mesh = await startTestMesh();
    boot = await mesh.bootstrap();
    // A tax rate book is seeded with the managed defaults on its first read (a write by design):
    // read it once, so harmless reads of the run find it seeded and write nothing.
    for (const list of ['tax-rates', 'tax-rules']) {
      const seeded = await fetch(`${mesh.adminBaseUrl}/${list}`, {
        headers: { authorization: `Bearer ${boot.apiKey}` },
      });
      expect(seeded.status).toBe(200);
    }
    db = new pg.Client({ connectionString: PG_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await mesh?.dispose();
  });

  it('answers generated bad input on every route with a 4xx envelope and X-Request-ID, never a 5xx, and writes nothing', async () => {
    const routes = [...(await adminRoutes(mesh.adminBaseUrl)), ...(await publicRoutes())];
    // Both gateways found, with the routes the probes are about.
    const keys = new Set(routes.map((r) => `${r.gateway} ${r.method} ${r.path}`));
    for (const k of [
      'admin POST /api/v1/sites',
      'admin POST /api/v1/providers',
      'admin POST /api/v1/checkouts/:siteId/create',
      'public GET /api/v1/checkouts/:id',
      'public POST /api/v1/transactions/create',
      'public POST /hooks/:type/:providerId',
    ]) {
      expect(keys, k).toContain(k);
    }
    expect(routes.length).toBeGreaterThan(50);

    const ids = { organizationId: boot.organizationId, siteId: boot.siteId };
    const cases = routes.flatMap((route, i) =>
      fc.sample(caseArbitrary(route, ids), { seed: SEED + i, numRuns: CASES_PER_ROUTE }),
    );
    const aliasRoot = mesh.adminBaseUrl.replace(/\/api\/v1$/, '');
    const publicRoot = mesh.publicBaseUrl.replace(/\/api\/v1$/, '');

    // Settled store before the run: bootstrap's events have been consumed everywhere.
    let last = '';
    const before = await eventually(
      async () => {
        const now = JSON.stringify(await rowCounts(db, mesh.namespace));
        const stable = now === last;
        last = now;
        return stable ? (JSON.parse(now) as Record<string, number>) : undefined;
      },
      30_000,
      1_000,
    );
    expect(Object.keys(before).length).toBeGreaterThan(5);

    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++]!;
        const root = c.route.gateway === 'admin' ? aliasRoot : publicRoot;
        // Admin routes are also served under the /v1 alias: alternate between the two.
        const url =
          c.route.gateway === 'admin' && next % 3 === 0
            ? `${root}${c.url.replace(/^\/api\/v1/, '/v1')}`
            : `${root}${c.url}`;
        const token =
          c.route.gateway === 'admin'
            ? c.route.path.startsWith('/api/v1/system')
              ? mesh.systemApiKey
              : boot.apiKey
            : undefined;
        const send = () =>
          fetch(url, {
            method: c.route.method,
            redirect: 'manual',
            headers: {
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              ...(c.body !== undefined ? { 'content-type': c.contentType ?? 'application/json' } : {}),
            },
            body: c.body,
          });
        // A server may close a kept-alive connection after refusing an oversized body unread (413);
        // a request that raced that close is sent once more on a new connection. A second network
        // failure is a finding.
        let res: Response;
        try {
          res = await send().catch(async (err: unknown) => {
            if (err instanceof TypeError) return send();
            throw err;
          });
        } catch (err) {
          failures.push(
            `network: ${c.route.method} ${c.route.path} [${c.label}] -> ${err instanceof Error ? `${err.message} ${String((err as { cause?: unknown }).cause ?? '')}` : String(err)}`,
          );
          continue;
        }
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const where = `${c.route.method} ${c.route.path} [${c.label}] -> ${res.status} ${text.slice(0, 200)}`;
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        // The deep health check answers 503 with its own report when a dependency is slow or down
        // (the machine's shared PostgreSQL under load): that is its contract, not an input failure.
        if (c.route.path === '/internal/health' && res.status === 503 && !c.mustReject) continue;
        if (res.status >= 500) failures.push(`5xx: ${where}`);
        if (!res.headers.get('x-request-id')) failures.push(`no X-Request-ID: ${where}`);
        if (c.mustReject && (res.status < 400 || res.status >= 500)) failures.push(`not refused: ${where}`);
        if (res.status >= 400) {
          const env = body as Record<string, unknown> | undefined;
          const ok =
            typeof env === 'object' &&
            env !== null &&
            typeof env.error === 'string' &&
            Object.keys(env).every((k) => ['error', 'code', 'requestId'].includes(k));
          if (!ok) failures.push(`not the envelope: ${where}`);
          if (/serialization|FST_ERR|invalid int32|postgres/i.test(text)) failures.push(`internal detail: ${where}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect(failures.slice(0, 20), `${failures.length} failures of ${cases.length} requests`).toEqual([]);
    expect(cases.length).toBeGreaterThan(routes.length * (CASES_PER_ROUTE - 1));
    const after = await rowCounts(db, mesh.namespace);
    // An accepted call of the recurring processor (no body, or harmless query parameters) is a run,
    // and every run is logged even when nothing was due; refused calls are checked above.
    const runs = Object.keys(after).find((k) => k.endsWith('_recurring.processor_runs'));
    if (runs) {
      expect(after[runs]).toBeGreaterThanOrEqual(before[runs] ?? 0);
      after[runs] = before[runs] ?? 0;
    }
    expect(after).toEqual(before);
    // Most answers are refusals (the rest: harmless queries on reads and unknown ids).
    const refused = [...statuses].filter(([s]) => s >= 400 && s < 500).reduce((n, [, c]) => n + c, 0);
    expect(refused / cases.length).toBeGreaterThan(0.8);
  });
});
