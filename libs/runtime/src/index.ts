export * from './services';
export * from './config';
export * from './infra';
export * from './run';
