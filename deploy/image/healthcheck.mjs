#!/usr/bin/env node
// The image's HEALTHCHECK: asks the service named by $SERVICE, in this container, whether it serves,
// from the same environment the service reads. Exit 0 healthy, 1 not (Docker's convention).
//   gateways: GET /health on HOST:PORT
//   backends: gRPC health on GRPC_HEALTH_PORT (the plaintext health-only listener) or, without one,
//             on GRPC_PORT with this service's own mesh certificate (GRPC_TLS_*; GRPC_INSECURE=true: plaintext)
// Kubernetes ignores image health checks and uses the chart's probes; compose and `docker run` use this.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { checkHealth, INSECURE, readMeshTls } = require('../../libs/grpc/dist/index.js');
const { BACKEND_SERVICES } = require('../../libs/runtime/dist/services.js');

const GATEWAY_PORTS = { 'gateway-admin': 8080, 'gateway-public': 8081 };
const DEADLINE_MS = 3_000;

/** Where to dial a listener bound to `host`: loopback for the wildcard addresses. */
function dialHost(host) {
  if (!host || host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}
const hostPort = (host, port) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

async function gatewayHealthy(env, service) {
  const url = `http://${hostPort(dialHost(env.HOST), env.PORT || GATEWAY_PORTS[service])}/health`;
  const res = await fetch(url, { signal: AbortSignal.timeout(DEADLINE_MS) });
  return res.ok;
}

async function backendHealthy(env, service) {
  const host = dialHost(env.GRPC_HOST);
  if (env.GRPC_HEALTH_PORT) return checkHealth(hostPort(host, env.GRPC_HEALTH_PORT), DEADLINE_MS, INSECURE);
  const security =
    env.GRPC_INSECURE === 'true'
      ? INSECURE
      : {
          kind: 'mtls',
          tls: readMeshTls({
            caFile: env.GRPC_TLS_CA_FILE,
            certFile: env.GRPC_TLS_CERT_FILE,
            keyFile: env.GRPC_TLS_KEY_FILE,
          }),
        };
  return checkHealth(hostPort(host, env.GRPC_PORT || BACKEND_SERVICES[service].grpcPort), DEADLINE_MS, security);
}

/** True when the service this container runs answers that it serves. */
async function healthy(env = process.env) {
  const service = env.SERVICE;
  if (service in GATEWAY_PORTS) return gatewayHealthy(env, service);
  if (service in BACKEND_SERVICES) return backendHealthy(env, service);
  throw new Error(`SERVICE must name one of the services (got ${JSON.stringify(service)})`);
}

healthy().then(
  (ok) => process.exit(ok ? 0 : 1),
  (err) => {
    console.error(`unhealthy: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
