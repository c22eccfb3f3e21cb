import { z } from 'zod';
import { loadConfig } from '@paymesh/core';

const schema = z.object({
  OTEL_SERVICE_NAME: z.string().optional(),
  SERVICE_NAME: z.string().optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_SDK_DISABLED: z.enum(['true', 'false']).optional(),
});

export const telemetryConfig = loadConfig(schema, process.env);
