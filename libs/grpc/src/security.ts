import { readFileSync } from 'node:fs';
import { credentials, ServerCredentials, type ChannelCredentials } from '@grpc/grpc-js';

/** PEM material of one mesh member: the mesh CA, its own certificate chain and private key. */
export interface MeshTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/**
 * How this process speaks gRPC. `mtls`: servers demand a client certificate issued by the mesh
 * CA, clients verify that the server's certificate is issued by it and names the address they
 * dialled. `insecure`: plaintext, only for in-process tests and the explicit GRPC_INSECURE opt-out.
 */
export type GrpcSecurity = { kind: 'mtls'; tls: MeshTls } | { kind: 'insecure' };

export const INSECURE: GrpcSecurity = { kind: 'insecure' };

// Kept on globalThis so that every copy of this module in a process (built and source imports in
// tests) shares one setting.
const SLOT = Symbol.for('paymesh.grpc.security');
const slot = globalThis as { [SLOT]?: GrpcSecurity };

/**
 * Sets the security every server, client and health check of this process uses by default.
 * Service start-up calls it once from the configuration, before anything dials or listens.
 */
export function setGrpcSecurity(security: GrpcSecurity): void {
  slot[SLOT] = security;
}

/** The process's gRPC security; plaintext until {@link setGrpcSecurity} is called. */
export function grpcSecurity(): GrpcSecurity {
  return slot[SLOT] ?? INSECURE;
}

/** Reads the PEM files of a mesh member; the error names the file that could not be read. */
export function readMeshTls(files: { caFile: string; certFile: string; keyFile: string }): MeshTls {
  const read = (what: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(
        `cannot read the gRPC ${what} file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      );
    }
  };
  return { ca: read('CA', files.caFile), cert: read('certificate', files.certFile), key: read('key', files.keyFile) };
}

export function serverCredentials(security: GrpcSecurity = grpcSecurity()): ServerCredentials {
  if (security.kind === 'insecure') return ServerCredentials.createInsecure();
  // true: the handshake fails unless the client presents a certificate the mesh CA issued.
  return ServerCredentials.createSsl(
    security.tls.ca,
    [{ cert_chain: security.tls.cert, private_key: security.tls.key }],
    true,
  );
}

/**
 * One credentials object per security setting: grpc-js shares a connection between clients of the
 * same address only when their TLS credentials are the same object (one secure context), so a new
 * one per client would open a connection (and a handshake) per client and per health check.
 */
const channelCredentialsOf = new WeakMap<GrpcSecurity, ChannelCredentials>();

export function channelCredentials(security: GrpcSecurity = grpcSecurity()): ChannelCredentials {
  if (security.kind === 'insecure') return credentials.createInsecure();
  let creds = channelCredentialsOf.get(security);
  if (!creds) {
    creds = credentials.createSsl(security.tls.ca, security.tls.key, security.tls.cert);
    channelCredentialsOf.set(security, creds);
  }
  return creds;
}
