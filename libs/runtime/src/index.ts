export * from './services';
export * from './config';
export * from './infra';
export * from './counters';
export * from './run';
export { exitWithParent } from '@paymesh/core';
export * from './gateway';
export * from './work-loop';
export * from './job-loop';
