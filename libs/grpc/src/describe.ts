import type { Logger } from '@paymesh/core';
import { unary } from './server';

/** What a service's `Describe` method answers: its name and the version of its contract. */
export interface ServiceDescription {
  service: string;
  version: string;
}

/** The `Describe` method every service serves (`<service>/Describe` in logs): its name and version. */
export function describeMethod<Req>(logger: Logger, service: string, version: string) {
  return unary<Req, ServiceDescription>(logger, `${service}/Describe`, async () => ({ service, version }));
}
