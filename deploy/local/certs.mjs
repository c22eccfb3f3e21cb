// Local mesh PKI for `pnpm start` and the test harnesses: one CA and a certificate per process
// (server + client use), written as PEM files. Backend gRPC runs on mutual TLS with these: servers
// require a client certificate from the CA and clients verify the server's certificate and name.
// Production takes its CA and certificates from a Secret (see helm/paymesh/README.md).
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

x509.cryptoProvider.set(webcrypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY = 24 * 3600 * 1000;
/** Local certificates live for 90 days and are renewed when fewer than 7 are left. */
const LIFETIME_DAYS = 90;
const RENEW_DAYS = 7;

const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

async function exportKey(key) {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der
    .toString('base64')
    .match(/.{1,64}/g)
    .join('\n')}\n-----END PRIVATE KEY-----\n`;
}

function writeSecret(file, pem) {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, pem, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** Whether a PEM certificate file exists and stays valid for a while. */
function fresh(file) {
  if (!existsSync(file)) return false;
  try {
    const cert = new x509.X509Certificate(readFileSync(file, 'utf8'));
    return cert.notAfter.getTime() - Date.now() > RENEW_DAYS * DAY;
  } catch {
    return false;
  }
}

function filesOf(dir, names) {
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    certs: Object.fromEntries(
      names.map((n) => [n, { certFile: join(dir, `${n}.crt`), keyFile: join(dir, `${n}.key`) }]),
    ),
  };
}

/**
 * Makes sure `dir` holds a CA and a certificate/key per name, signed by that CA, each valid for
 * the DNS name `<name>`, `localhost`, 127.0.0.1 and ::1 (backends listen on loopback locally).
 * Existing files are kept while they are valid and signed by the CA in `dir`; otherwise the whole
 * set is issued anew.
 * @param {string} dir
 * @param {string[]} names
 */
export async function ensureMeshCerts(dir, names) {
  const files = filesOf(dir, names);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const all = [files.caFile, ...names.map((n) => files.certs[n].certFile)];
  if (all.every(fresh) && names.every((n) => existsSync(files.certs[n].keyFile))) {
    const ca = new x509.X509Certificate(readFileSync(files.caFile, 'utf8'));
    const signedByCa = await Promise.all(
      names.map((n) =>
        new x509.X509Certificate(readFileSync(files.certs[n].certFile, 'utf8')).verify({
          publicKey: ca.publicKey,
          signatureOnly: true,
        }),
      ),
    );
    if (signedByCa.every(Boolean)) return files;
  }
  const notBefore = new Date(Date.now() - 5 * 60 * 1000);
  const notAfter = new Date(Date.now() + LIFETIME_DAYS * DAY);
  const caKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=Paymesh local mesh CA ${new Date().toISOString()}`,
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  for (const name of names) {
    const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: `CN=${name}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
        new x509.SubjectAlternativeNameExtension([
          { type: 'dns', value: name },
          { type: 'dns', value: 'localhost' },
          { type: 'ip', value: '127.0.0.1' },
          { type: 'ip', value: '::1' },
        ]),
        await x509.AuthorityKeyIdentifierExtension.create(ca),
      ],
    });
    writeSecret(files.certs[name].keyFile, await exportKey(keys.privateKey));
    writeFileSync(files.certs[name].certFile, cert.toString('pem') + '\n');
  }
  // The CA goes last: a set interrupted half-way is not taken as complete next time.
  writeFileSync(files.caFile, ca.toString('pem') + '\n');
  return files;
}

/** gRPC TLS settings of one process, as environment variables its config reads. */
export function grpcTlsEnv(files, name) {
  return {
    GRPC_TLS_CA_FILE: files.caFile,
    GRPC_TLS_CERT_FILE: files.certs[name].certFile,
    GRPC_TLS_KEY_FILE: files.certs[name].keyFile,
  };
}

// CLI (compose's one-shot `grpc-certs` service): node deploy/local/certs.mjs <dir> [--owner uid:gid] <name>...
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const ownerAt = args.indexOf('--owner');
  const owner = ownerAt >= 0 ? args.splice(ownerAt, 2)[1] : undefined;
  const [dir, ...names] = args;
  if (!dir || names.length === 0) {
    console.error('usage: node deploy/local/certs.mjs <dir> [--owner uid:gid] <name>...');
    process.exit(2);
  }
  const files = await ensureMeshCerts(dir, names);
  if (owner) {
    const [uid, gid] = owner.split(':').map(Number);
    for (const f of [dir, files.caFile, ...names.flatMap((n) => [files.certs[n].certFile, files.certs[n].keyFile])])
      chownSync(f, uid, gid);
  }
  console.log(`mesh CA and certificates for ${names.join(', ')} in ${dir}`);
}
