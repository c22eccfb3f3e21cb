export * from './events';
export * from './ipn-signature';
export * from './settings';
