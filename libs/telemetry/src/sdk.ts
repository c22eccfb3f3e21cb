import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/**
 * The OpenTelemetry SDK with span export to an OTLP/HTTP endpoint. Loaded only when an endpoint is
 * configured: without one nothing would leave the process, so nothing is paid for.
 *
 * Instrumented: inbound/outbound node:http, outbound fetch/undici (IPN deliveries, VIES, provider
 * APIs), gRPC, PostgreSQL and Redis (ioredis: the gateways' rate limits). NATS has no maintained
 * instrumentation; its publish/consume spans are our own (see bridge.ts and libs/bus). The
 * instrumentations are listed one by one rather than through auto-instrumentations-node (see
 * docs/adr/0064-traces-that-don-t-stop.md).
 * No metric reader and no log processor: only traces are exported.
 */
export function startSdk(serviceName: string, otlpEndpoint: string): NodeSDK {
  const url = `${otlpEndpoint.replace(/\/$/, '')}/v1/traces`;
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    // Host/process detectors read the environment and spawn nothing useful for us; the service
    // name is what the collector needs.
    autoDetectResources: false,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 500 })],
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Probes would flood the traces with nothing to follow.
        ignoreIncomingRequestHook: (req) => req.url === '/health' || req.url === '/internal/health',
      }),
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
      new PgInstrumentation({ requireParentSpan: true }),
      // Covers Node's global fetch and the undici package alike (both report on diagnostics_channel).
      new UndiciInstrumentation(),
      // Connection set-up commands outside any request would each be a trace of their own.
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return sdk;
}
