import { loadConfig } from '@paymesh/core';
import { backendConfigSchema } from '@paymesh/runtime';

export const configSchema = backendConfigSchema('tax');

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
