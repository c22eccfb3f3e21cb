export * from './request-context';
export * from './errors';
export * from './health';
export * from './rate-limit';
export * from './openapi';
export * from './schemas';
export * from './input-guard';
export * from './optional-body';
