import { isIP } from 'node:net';
import { z } from 'zod';
import { envInt, loadConfig, secretsConfigSchema } from '@paymesh/core';
import { backendConfigSchema } from '@paymesh/runtime';

/** `ip`, `ip:port` or `[ipv6]:port`, as `dns.Resolver#setServers` takes them. */
function isDnsServer(s: string): boolean {
  const v6 = /^\[(.+)\](?::(\d{1,5}))?$/.exec(s);
  if (v6) return isIP(v6[1] ?? '') === 6;
  if (isIP(s) !== 0) return true;
  const m = /^(.+):(\d{1,5})$/.exec(s);
  return !!m && isIP(m[1] ?? '') === 4 && Number(m[2]) > 0 && Number(m[2]) < 65536;
}

export const configSchema = backendConfigSchema('checkout')
  .merge(secretsConfigSchema)
  .extend({
    /** Comma-separated DNS servers for custom-domain CNAME checks; empty = the system resolvers. */
    DNS_RESOLVERS: z
      .string()
      .default('')
      .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
      .refine((list) => list.every(isDnsServer), 'DNS_RESOLVERS must be a comma-separated list of ip or ip:port'),
    DNS_TIMEOUT_MS: envInt(1500),
    DNS_TRIES: envInt(2),
    /** Host name a merchant's custom domain must CNAME to (the hosted checkout's host). */
    CUSTOM_DOMAIN_CNAME_TARGET: z
      .string()
      .default('checkout.paymesh.example')
      .refine((v) => /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+\.?$/i.test(v), 'must be a host name'),
  });

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
