import { z } from 'zod';

/** An API origin (scheme, host, optional port); provider clients take no base path. */
export const apiBaseUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\/[^/?#]+\/?$/.test(u), 'must be an http(s) origin such as https://api.example.com')
  .transform((u) => u.replace(/\/+$/, ''));
