export * from './request-context';
export * from './errors';
export * from './health';
