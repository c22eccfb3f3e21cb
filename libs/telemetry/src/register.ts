// Side-effect entry: `import '@paymesh/telemetry/register'` as the first import of a service's
// main module starts tracing before any instrumented library is loaded.
import { startTelemetry } from './index';
import { telemetryConfig } from './config';

const serviceName = telemetryConfig.OTEL_SERVICE_NAME ?? telemetryConfig.SERVICE_NAME ?? 'paymesh';
if (telemetryConfig.OTEL_SDK_DISABLED !== 'true') {
  startTelemetry({
    serviceName,
    ...(telemetryConfig.OTEL_EXPORTER_OTLP_ENDPOINT ? { otlpEndpoint: telemetryConfig.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
  });
}
