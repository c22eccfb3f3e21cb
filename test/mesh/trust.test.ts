import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureMeshCerts } from '../../deploy/local/certs.mjs';
import { startMesh } from '../../deploy/local/supervisor.mjs';
import { DEV_SECRETS_KEYRING } from '../../libs/core/src/index';
import { call, INSECURE, makeClient, readMeshTls, type GrpcSecurity } from '../../libs/grpc/src/index';
import { checkout } from '../../libs/proto/src/index';
import { NATS_URL, PG_URL, api, dropNamespace, startTestMesh, type TestMesh } from '../support/mesh';

/** An address outside the suites' rate-limit allow-list (fetch cannot choose its source address). */
const COUNTED_IP = '127.0.0.3';
const ORG_PER_MINUTE = 5;

function getFrom(url: string, token: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress: COUNTED_IP, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let data = '';
      res.on('data', (c: Buffer) => (data += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Asks checkout for a site's IPN signing secret, the call an intruder in the cluster would make. */
async function askForSigningSecret(
  address: string,
  security: GrpcSecurity,
  organizationId: string,
  siteId: string,
): Promise<string> {
  const client = makeClient(checkout.CheckoutServiceClient, address, security);
  try {
    return (
      await call(
        client,
        client.getSiteSigningSecret,
        { organizationId, siteId },
        { deadlineMs: 5_000, target: 'checkout' },
      )
    ).secret;
  } finally {
    client.close();
  }
}

describe('service-to-service trust', () => {
  let mesh: TestMesh;
  let boot: Awaited<ReturnType<TestMesh['bootstrap']>>;
  const otherDir = mkdtempSync(join(tmpdir(), 'paymesh-other-ca-'));
  let foreign: GrpcSecurity;

  beforeAll(async () => {
    mesh = await startTestMesh({
      env: { RATE_LIMIT_PER_MINUTE: '4', RATE_LIMIT_ORG_PER_MINUTE: String(ORG_PER_MINUTE) },
    });
    boot = await mesh.bootstrap();
    const other = await ensureMeshCerts(otherDir, ['gateway-admin']);
    foreign = {
      kind: 'mtls',
      tls: readMeshTls({
        caFile: other.caFile,
        certFile: other.certs['gateway-admin']!.certFile,
        keyFile: other.certs['gateway-admin']!.keyFile,
      }),
    };
  });

  afterAll(async () => {
    await mesh?.dispose();
    rmSync(otherDir, { recursive: true, force: true });
  });

  it('gives checkout gRPC only to callers holding a certificate of the mesh CA', async () => {
    const address = `127.0.0.1:${mesh.ports['checkout']}`;
    expect(mesh.clientSecurity.kind).toBe('mtls');
    expect(await askForSigningSecret(address, mesh.clientSecurity, boot.organizationId, boot.siteId)).toBe(
      boot.webhookSigningSecret,
    );
    await expect(askForSigningSecret(address, INSECURE, boot.organizationId, boot.siteId)).rejects.toMatchObject({
      kind: 'unavailable',
    });
    await expect(askForSigningSecret(address, foreign, boot.organizationId, boot.siteId)).rejects.toMatchObject({
      kind: 'unavailable',
    });
    expect(mesh.logs('checkout').some((l) => l.includes('"transport":"mtls"'))).toBe(true);
  });

  it('shares one rate-limit budget between all keys of an organization', async () => {
    const mint = async (org: typeof boot) => {
      const res = await api('POST', `${mesh.adminBaseUrl}/organizations/${org.organizationId}/api-keys`, {
        token: org.apiKey,
        body: { name: `k-${randomBytes(4).toString('hex')}`, scopes: ['site:read'] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.token as string;
    };
    const [k1, k2, k3] = [await mint(boot), await mint(boot), await mint(boot)];
    const sites = `${mesh.adminBaseUrl}/sites`;
    for (let i = 0; i < 3; i++) expect((await getFrom(sites, k1)).status).toBe(200);
    for (let i = 0; i < ORG_PER_MINUTE - 3; i++) expect((await getFrom(sites, k2)).status).toBe(200);
    // A fresh key of the same organization does not bring a fresh budget.
    const limited = await getFrom(sites, k3);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatch(/for this organization/);
    // Another organization is not affected.
    const other = await mesh.bootstrap();
    expect((await getFrom(sites, await mint(other))).status).toBe(200);
  });

  it('refuses to start without NODE_ENV when given the published development keyring', async () => {
    const namespace = `t${randomBytes(4).toString('hex')}`;
    try {
      const started = startMesh({
        ephemeralPorts: true,
        logDir: join(mesh.logDir, '..', `${namespace}-refused`),
        readyTimeoutMs: 60_000,
        env: {
          NODE_ENV: undefined,
          PAYMESH_DEV_DEFAULTS: undefined,
          SECRETS_KEYRING: DEV_SECRETS_KEYRING,
          // Everything else a production start needs is given, so the keyring is what stops it.
          JWT_SECRET: randomBytes(32).toString('hex'),
          PUBLIC_ROOT_URL: 'https://pay.mesh.example',
          PROVIDER_A_API_BASE_URL: 'https://api.provider.example',
          PROVIDER_B_API_BASE_URL: 'https://api.provider-b.example',
          PROVIDER_C_API_BASE_URL: 'https://api.provider-c.example',
          PROVIDER_D_API_BASE_URL: 'https://api.provider-d.example',
          CHECKOUT_FRONTEND_URL: 'https://checkout.mesh.example',
          MAIN_FRONTEND_ORIGIN: 'https://checkout.mesh.example',
          STORE_URL: PG_URL,
          NATS_URL,
          STORE_NAMESPACE: namespace,
          BUS_NAMESPACE: namespace,
        },
      });
      await expect(started).rejects.toThrow(
        /exited \(1\) during start[\s\S]*SECRETS_KEYRING is the published development value/,
      );
    } finally {
      await dropNamespace(namespace);
    }
  });
});
