import { createHmac } from 'node:crypto';

/** Hex HMAC-SHA256 of "<timestamp>.<payload>" keyed with the endpoint secret (the whole `whsec_...` string). */
export function computeSignature(payload: string, secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
}

/** Value of the signature header: `t=<unix seconds>,v1=<hex signature>`. */
export function signatureHeader(payload: string, secret: string, timestamp: number): string {
  return `t=${timestamp},v1=${computeSignature(payload, secret, timestamp)}`;
}
