import { NodeSDK } from '@opentelemetry/sdk-node';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { setTraceBridge } from '@paymesh/core';
import { otelBridge } from './bridge';

export { tagActiveSpan } from './bridge';

export interface TelemetryOptions {
  serviceName: string;
  /** OTLP/HTTP base endpoint (e.g. http://collector:4318); spans are exported only when set. */
  otlpEndpoint?: string;
}

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry tracing with auto-instrumentation (HTTP, gRPC, PostgreSQL, MongoDB, Fastify).
 * Spans are always created so trace context propagates; they leave the process only when an
 * OTLP endpoint is configured. Must run before instrumented modules are loaded.
 */
export function startTelemetry(opts: TelemetryOptions): void {
  if (sdk) return;
  const processors: SpanProcessor[] = [];
  if (opts.otlpEndpoint) {
    const url = `${opts.otlpEndpoint.replace(/\/$/, '')}/v1/traces`;
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 500 }));
  }
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: opts.serviceName }),
    spanProcessors: processors,
    instrumentations: [
      getNodeAutoInstrumentations({
        '@opentelemetry/instrumentation-fs': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        '@opentelemetry/instrumentation-net': { enabled: false },
        '@opentelemetry/instrumentation-pino': { enabled: false },
      }),
    ],
  });
  sdk.start();
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
