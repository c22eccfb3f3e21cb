export * from './events';
export * from './settings';
