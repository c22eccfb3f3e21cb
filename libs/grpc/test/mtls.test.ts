import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials } from '@grpc/grpc-js';
import { createLogger } from '@paymesh/core';
import { health, recurring } from '@paymesh/proto';
import { ensureMeshCerts } from '../../../deploy/local/certs.mjs';
import { call, checkHealth, GrpcServer, INSECURE, makeClient, readMeshTls, unary, type GrpcSecurity } from '../src';

const logger = createLogger({ service: 'grpc-mtls-test', level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'paymesh-mtls-'));
let mesh: (name: string) => GrpcSecurity;
let foreign: (name: string) => GrpcSecurity;
const server = new GrpcServer(logger, 'recurring');
let addr = '';

beforeAll(async () => {
  const names = ['recurring', 'gateway-admin'];
  const [ours, theirs] = await Promise.all([
    ensureMeshCerts(join(dir, 'mesh'), names),
    ensureMeshCerts(join(dir, 'other'), names),
  ]);
  const security =
    (files: typeof ours) =>
    (name: string): GrpcSecurity => ({
      kind: 'mtls',
      tls: readMeshTls({
        caFile: files.caFile,
        certFile: files.certs[name]!.certFile,
        keyFile: files.certs[name]!.keyFile,
      }),
    });
  mesh = security(ours);
  foreign = security(theirs);
  const impl: Pick<recurring.RecurringServiceServer, 'describe'> = {
    describe: unary(logger, 'recurring/Describe', async () => ({ service: 'recurring', version: '1' })),
  };
  server.addService({ describe: recurring.RecurringServiceService.describe }, impl);
  addr = `127.0.0.1:${await server.listen('127.0.0.1:0', mesh('recurring'))}`;
});

afterAll(async () => {
  await server.shutdown(100);
  rmSync(dir, { recursive: true, force: true });
});

async function describeWith(security: GrpcSecurity): Promise<string> {
  const client = makeClient(recurring.RecurringServiceClient, addr, security);
  try {
    return (await call(client, client.describe, {}, { deadlineMs: 3000, target: 'recurring' })).service;
  } finally {
    client.close();
  }
}

describe('backend gRPC over mutual TLS', () => {
  it('serves a client holding a certificate of the mesh CA', async () => {
    expect(await describeWith(mesh('gateway-admin'))).toBe('recurring');
    expect(await checkHealth(addr, 3000, mesh('gateway-admin'))).toBe(true);
  });

  it('refuses a plaintext client', async () => {
    await expect(describeWith(INSECURE)).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await checkHealth(addr, 3000, INSECURE)).toBe(false);
  });

  it('refuses a TLS client without a client certificate', async () => {
    const { tls } = mesh('gateway-admin') as Extract<GrpcSecurity, { kind: 'mtls' }>;
    const client = new health.HealthClient(addr, credentials.createSsl(tls.ca));
    try {
      await expect(
        call(client, client.check, { service: '' }, { deadlineMs: 3000, target: 'recurring' }),
      ).rejects.toMatchObject({ kind: 'unavailable' });
    } finally {
      client.close();
    }
  });

  it('refuses a client whose certificate another CA issued', async () => {
    await expect(describeWith(foreign('gateway-admin'))).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('makes the client refuse a server whose certificate another CA issued', async () => {
    const impostor = new GrpcServer(logger, 'recurring');
    const impostorAddr = `127.0.0.1:${await impostor.listen('127.0.0.1:0', foreign('recurring'))}`;
    try {
      expect(await checkHealth(impostorAddr, 3000, mesh('gateway-admin'))).toBe(false);
      expect(await checkHealth(impostorAddr, 3000, foreign('gateway-admin'))).toBe(true);
    } finally {
      await impostor.shutdown(100);
    }
  });
});
