import { loadConfig, secretsConfigSchema } from '@paymesh/core';
import { backendConfigSchema } from '@paymesh/runtime';

export const configSchema = backendConfigSchema('billing').merge(secretsConfigSchema);

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
