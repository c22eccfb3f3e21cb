import { setTraceBridge } from '@paymesh/core';
import { otelBridge } from './bridge';
import type { startSdk } from './sdk';

export { tagActiveSpan } from './bridge';

export interface TelemetryOptions {
  serviceName: string;
  /** OTLP/HTTP base endpoint (e.g. http://collector:4318). */
  otlpEndpoint: string;
}

type Sdk = ReturnType<typeof startSdk>;
let sdk: Sdk | undefined;

/**
 * Starts OpenTelemetry tracing (HTTP, gRPC and PostgreSQL instrumentation plus our own spans)
 * exporting to the OTLP endpoint. Must run before instrumented modules are loaded. Without a call
 * the request context still travels (X-Request-ID and an incoming traceparent, unchanged), and
 * the SDK is not even loaded.
 */
export function startTelemetry(opts: TelemetryOptions): void {
  if (sdk) return;
  // Loaded here rather than imported at the top: a process without an endpoint never pays for
  // the SDK's modules (and their instrumentation hooks).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startSdk: start } = require('./sdk') as typeof import('./sdk');
  sdk = start(opts.serviceName, opts.otlpEndpoint);
  setTraceBridge(otelBridge);
}

/** Flushes pending spans and stops the SDK. */
export async function stopTelemetry(): Promise<void> {
  if (!sdk) return;
  const s = sdk;
  sdk = undefined;
  setTraceBridge(undefined);
  // Bounded: a collector that is down must not hold up a service's shutdown.
  await Promise.race([s.shutdown().catch(() => undefined), new Promise((r) => setTimeout(r, 1500).unref())]);
}
