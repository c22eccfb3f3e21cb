import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '@paymesh/core';
import {
  backendConfigSchema,
  downstreamAddr,
  downstreamAddrsSchema,
  resolveGrpcSecurity,
  type DownstreamAddrs,
} from './config';

const dir = mkdtempSync(join(tmpdir(), 'paymesh-grpc-cfg-'));
const file = (name: string) => {
  const path = join(dir, name);
  writeFileSync(path, `${name}-pem`);
  return path;
};
const files = {
  GRPC_TLS_CA_FILE: file('ca.crt'),
  GRPC_TLS_CERT_FILE: file('tls.crt'),
  GRPC_TLS_KEY_FILE: file('tls.key'),
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function logged() {
  const lines: { level: number; msg: string }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, logger: createLogger({ service: 'grpc-cfg-test', level: 'info', destination }) };
}

const parse = (env: Record<string, string>) => backendConfigSchema('checkout').parse(env);

describe('gRPC security from the configuration', () => {
  it('uses mutual TLS with the three files, in every mode', () => {
    const { logger } = logged();
    const security = resolveGrpcSecurity(parse(files), logger);
    expect(security.kind).toBe('mtls');
    if (security.kind === 'mtls') expect(security.tls.cert.toString()).toBe('tls.crt-pem');
  });

  it('refuses to start without certificates, with only some of them, or with unreadable ones', () => {
    const { logger } = logged();
    expect(() => resolveGrpcSecurity(parse({}), logger)).toThrow(/needs mutual TLS/);
    expect(() => resolveGrpcSecurity(parse({ NODE_ENV: 'development' }), logger)).toThrow(/needs mutual TLS/);
    expect(() => resolveGrpcSecurity(parse({ GRPC_TLS_CA_FILE: files.GRPC_TLS_CA_FILE }), logger)).toThrow(
      /needs mutual TLS/,
    );
    expect(() => resolveGrpcSecurity(parse({ ...files, GRPC_TLS_KEY_FILE: join(dir, 'missing.key') }), logger)).toThrow(
      /cannot read the gRPC key file/,
    );
  });

  it('runs plaintext only when told so explicitly, and says so loudly', () => {
    const { lines, logger } = logged();
    expect(resolveGrpcSecurity(parse({ GRPC_INSECURE: 'true' }), logger)).toEqual({ kind: 'insecure' });
    expect(lines.some((l) => l.level === 50 && /PLAINTEXT and UNAUTHENTICATED/.test(l.msg))).toBe(true);
    expect(() => resolveGrpcSecurity(parse({ ...files, GRPC_INSECURE: 'true' }), logger)).toThrow(/contradicts/);
  });

  it('listens on loopback unless told otherwise, with no health-only port by default', () => {
    const c = parse({});
    expect(c.GRPC_HOST).toBe('127.0.0.1');
    expect(c.GRPC_HEALTH_PORT).toBeUndefined();
    expect(parse({ GRPC_HEALTH_PORT: '8090' }).GRPC_HEALTH_PORT).toBe(8090);
    expect(() => parse({ GRPC_HEALTH_PORT: '0' })).toThrow();
  });
});

describe('downstream backend addresses', () => {
  it('reads the addresses of exactly the declared backends, with loopback defaults', () => {
    const schema = downstreamAddrsSchema(['tax', 'notifications-ipn'] as const);
    expect(Object.keys(schema.shape).sort()).toEqual(['NOTIFICATIONS_IPN_GRPC_ADDR', 'TAX_GRPC_ADDR']);
    const c = schema.parse({ TAX_GRPC_ADDR: 'tax.svc:50054', CHECKOUT_GRPC_ADDR: 'ignored:1' });
    expect(c).toEqual({ TAX_GRPC_ADDR: 'tax.svc:50054', NOTIFICATIONS_IPN_GRPC_ADDR: '127.0.0.1:50057' });
    expect(downstreamAddr(c, 'tax')).toBe('tax.svc:50054');
    expect(Object.keys(downstreamAddrsSchema([] as const).parse({ TAX_GRPC_ADDR: 'x:1' }))).toEqual([]);
  });

  it('has no address of an undeclared backend (a type error, and a ConfigError if forced)', () => {
    const c = downstreamAddrsSchema(['tax'] as const).parse({});
    // @ts-expect-error checkout is not declared, so the config has no CHECKOUT_GRPC_ADDR.
    expect(() => downstreamAddr(c, 'checkout')).toThrow(/CHECKOUT_GRPC_ADDR is not configured/);
    const all: DownstreamAddrs = downstreamAddrsSchema([
      'checkout',
      'payments-webhooks',
      'billing',
      'tax',
      'recurring',
      'documents',
      'notifications-ipn',
    ] as const).parse({});
    expect(downstreamAddr(all, 'payments-webhooks')).toBe('127.0.0.1:50052');
  });
});
