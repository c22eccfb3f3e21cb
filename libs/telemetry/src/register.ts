// Side-effect entry: `import '@paymesh/telemetry/register'` as the first import of a service's
// main module starts tracing before any instrumented library is loaded, when (and only when)
// OTEL_EXPORTER_OTLP_ENDPOINT is set. Without an endpoint spans would reach nobody, so the SDK
// stays unloaded and the request context travels on its own (see @paymesh/core context.ts).
import { startTelemetry } from './index';
import { telemetryConfig } from './config';

const serviceName = telemetryConfig.OTEL_SERVICE_NAME ?? telemetryConfig.SERVICE_NAME ?? 'paymesh';
const endpoint = telemetryConfig.OTEL_EXPORTER_OTLP_ENDPOINT;
if (endpoint && telemetryConfig.OTEL_SDK_DISABLED !== 'true') {
  startTelemetry({ serviceName, otlpEndpoint: endpoint });
}
