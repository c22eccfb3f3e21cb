export * from './events';
export * from './ipn-signature';
