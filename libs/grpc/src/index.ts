export * from './errors';
export * from './server';
export * from './client';
export * from './security';
export * from './json';
export * from './json-callers';
export * from './streams';
export * from './describe';
export { grpcStats, grpcCallsServing, type GrpcStats, type GrpcMethodStats } from './stats';
