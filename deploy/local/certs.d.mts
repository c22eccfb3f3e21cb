export interface MeshCertFiles {
  dir: string;
  caFile: string;
  certs: Record<string, { certFile: string; keyFile: string }>;
}
export function ensureMeshCerts(dir: string, names: string[]): Promise<MeshCertFiles>;
export function grpcTlsEnv(
  files: MeshCertFiles,
  name: string,
): { GRPC_TLS_CA_FILE: string; GRPC_TLS_CERT_FILE: string; GRPC_TLS_KEY_FILE: string };
