import { invalidParam, missingParam, unknownParam } from '../errors';

export type Raw = Record<string, unknown>;

const INT = /^-?\d+$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isRecord(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Typed reads of request parameters (form-encoded, JSON or query string) with the provider's
 * error messages. An empty string means "unset" (null), as on the wire.
 */
export class Params {
  private constructor(
    readonly raw: Raw,
    private readonly prefix: string,
  ) {}

  /** Wraps a parsed body or query; `allowed` names every accepted top-level key (`expand` is always accepted). */
  static of(input: unknown, allowed: readonly string[], prefix = ''): Params {
    const raw = isRecord(input) ? input : {};
    for (const key of Object.keys(raw)) {
      if (key !== 'expand' && !allowed.includes(key)) throw unknownParam(prefix ? `${prefix}[${key}]` : key);
    }
    return new Params(raw, prefix);
  }

  private name(key: string): string {
    return this.prefix ? `${this.prefix}[${key}]` : key;
  }

  has(key: string): boolean {
    return this.raw[key] !== undefined;
  }

  /** undefined: absent; null: explicitly emptied. */
  string(key: string, opts: { required?: boolean; max?: number } = {}): string | null | undefined {
    const v = this.raw[key];
    if (v === undefined) {
      if (opts.required) throw missingParam(this.name(key));
      return undefined;
    }
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (typeof v !== 'string') throw invalidParam(`Invalid string: ${this.name(key)} must be a string`, this.name(key));
    if (v === '') {
      if (opts.required) throw missingParam(this.name(key));
      return null;
    }
    if (opts.max !== undefined && v.length > opts.max) {
      throw invalidParam(`Invalid ${this.name(key)}: must be at most ${opts.max} characters`, this.name(key));
    }
    return v;
  }

  requiredString(key: string, opts: { max?: number } = {}): string {
    return this.string(key, { ...opts, required: true }) as string;
  }

  requiredInt(key: string, opts: { min?: number; max?: number } = {}): number {
    const v = this.int(key, { ...opts, required: true });
    if (v === undefined) throw missingParam(this.name(key));
    return v;
  }

  int(key: string, opts: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
    const v = this.raw[key];
    if (v === undefined || v === '') {
      if (opts.required) throw missingParam(this.name(key));
      return undefined;
    }
    const n = typeof v === 'number' ? v : typeof v === 'string' && INT.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n)) {
      throw invalidParam(
        `Invalid integer: ${typeof v === 'string' ? v : JSON.stringify(v)}`,
        this.name(key),
        'parameter_invalid_integer',
      );
    }
    if (opts.min !== undefined && n < opts.min) {
      throw invalidParam(
        `This value must be greater than or equal to ${opts.min}.`,
        this.name(key),
        'parameter_invalid_integer',
      );
    }
    if (opts.max !== undefined && n > opts.max) {
      throw invalidParam(
        `This value must be less than or equal to ${opts.max}.`,
        this.name(key),
        'parameter_invalid_integer',
      );
    }
    return n;
  }

  bool(key: string): boolean | undefined {
    const v = this.raw[key];
    if (v === undefined || v === '') return undefined;
    if (v === true || v === 'true') return true;
    if (v === false || v === 'false') return false;
    throw invalidParam(`Invalid boolean: ${String(v)}`, this.name(key));
  }

  enumOf<T extends string>(key: string, values: readonly T[]): T | null | undefined {
    const v = this.string(key);
    if (v === undefined || v === null) return v;
    if (!(values as readonly string[]).includes(v)) {
      throw invalidParam(`Invalid ${this.name(key)}: must be one of ${values.join(', ')}`, this.name(key));
    }
    return v as T;
  }

  email(key: string): string | null | undefined {
    const v = this.string(key, { max: 800 });
    if (v && !EMAIL.test(v)) throw invalidParam(`Invalid email address: ${v}`, this.name(key), 'email_invalid');
    return v;
  }

  /** Absolute http(s) URL. */
  url(key: string): string | null | undefined {
    const v = this.string(key, { max: 2048 });
    if (v === undefined || v === null) return v;
    let parsed: URL | undefined;
    try {
      parsed = new URL(v);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      throw invalidParam(`Invalid URL: ${v}. URLs must begin with http:// or https://`, this.name(key), 'url_invalid');
    }
    return v;
  }

  /** Array of strings, accepting both `k[0]=a&k[1]=b` and `k[]=a`. */
  stringArray(key: string, opts: { required?: boolean } = {}): string[] | undefined {
    const v = this.raw[key];
    if (v === undefined || v === '') {
      if (opts.required) throw missingParam(this.name(key));
      return undefined;
    }
    const items = Array.isArray(v)
      ? v
      : isRecord(v) && Object.keys(v).every((k) => INT.test(k))
        ? Object.values(v)
        : undefined;
    if (!items || !items.every((i): i is string => typeof i === 'string' && i !== '')) {
      throw invalidParam(`Invalid array: ${this.name(key)} must be a list of strings`, this.name(key));
    }
    return items;
  }

  /** Nested hash parameter, e.g. automatic_payment_methods[enabled]=true. */
  nested(key: string, allowed: readonly string[]): Params | undefined {
    const v = this.raw[key];
    if (v === undefined || v === '') return undefined;
    if (!isRecord(v)) throw invalidParam(`Invalid object: ${this.name(key)} must be a hash`, this.name(key));
    return Params.of(v, allowed, this.name(key));
  }

  /**
   * Metadata with update semantics: `metadata=` clears everything (null), `metadata[k]=` removes k (value null).
   * Limits: 50 keys, keys up to 40 characters, values up to 500.
   */
  metadata(key = 'metadata'): Record<string, string | null> | null | undefined {
    const v = this.raw[key];
    if (v === undefined) return undefined;
    if (v === '') return null;
    if (!isRecord(v)) throw invalidParam('Invalid metadata: must be a hash of string keys and values', key);
    const out: Record<string, string | null> = {};
    const entries = Object.entries(v);
    if (entries.length > 50) throw invalidParam('Invalid metadata: at most 50 keys are allowed', key);
    for (const [k, val] of entries) {
      if (k === '__proto__') throw invalidParam('Invalid metadata key: __proto__', key);
      if (k.length > 40) throw invalidParam(`Invalid metadata key ${k}: must be at most 40 characters`, `${key}[${k}]`);
      if (typeof val === 'number' || typeof val === 'boolean') out[k] = String(val);
      else if (typeof val === 'string') out[k] = val === '' ? null : val;
      else if (val === null) out[k] = null;
      else throw invalidParam(`Invalid metadata[${k}]: values must be strings`, `${key}[${k}]`);
      const s = out[k];
      if (s && s.length > 500)
        throw invalidParam(`Invalid metadata[${k}]: must be at most 500 characters`, `${key}[${k}]`);
    }
    return out;
  }

  /** Metadata for a new object: removals are meaningless, so they are dropped. */
  newMetadata(key = 'metadata'): Record<string, string> {
    const m = this.metadata(key);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(m ?? {})) if (v !== null) out[k] = v;
    return out;
  }

  expand(): string[] {
    return this.raw.expand === undefined ? [] : (this.stringArray('expand') ?? []);
  }
}
