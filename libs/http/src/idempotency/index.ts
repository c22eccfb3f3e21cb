export * from './fingerprint';
export * from './decide';
export * from './records';
export * from './plugin';
export * from './openapi';
export * from './memory';
export * from './gateway-records';
