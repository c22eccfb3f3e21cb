import { loadConfig } from '@paymesh/core';
import { backendConfigSchema } from '@paymesh/runtime';

export const configSchema = backendConfigSchema('recurring');

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
