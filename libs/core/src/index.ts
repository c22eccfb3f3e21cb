export * from './errors';
export * from './context';
export * from './logger';
export * from './config';
export * from './ids';
export * from './clock';
export * from './secrets';
export * from './parent';
