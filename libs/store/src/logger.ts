/** The slice of a logger the store uses; a pino `Logger` from `@paymesh/core` fits. */
export interface StoreLogger {
  warn(obj: object, msg?: string): void;
}
