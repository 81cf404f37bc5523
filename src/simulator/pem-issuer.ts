/**
 * Real PEM chains for the simulator's download endpoint: a root, an intermediate signed by it, a
 * cross-signed root, and a leaf whose subject, SANs, serial and validity match the certificate
 * record, so clients can parse them with `node:crypto` `X509Certificate`.
 * ECDSA P-256 through WebCrypto keeps generation to milliseconds.
 */
import { webcrypto } from 'node:crypto';
import type { X509Certificate } from '@peculiar/x509';
import { loadX509 } from './x509.ts';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const YEAR = 365 * 86_400_000;

export interface LeafRequest {
  commonName: string;
  subjectAlternativeNames: readonly string[];
  serialHex: string;
  notBefore: Date;
  notAfter: Date;
  organization?: string;
}

export interface PemChain {
  certificate: string;
  intermediate: string;
  cross: string;
  root: string;
}

interface Authority {
  keys: webcrypto.CryptoKeyPair;
  certificate: X509Certificate;
}

const generateKeys = (): Promise<webcrypto.CryptoKeyPair> =>
  webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;

async function createAuthorities(): Promise<{
  root: Authority;
  intermediate: Authority;
  cross: string;
}> {
  const x509 = await loadX509();
  const base = Date.UTC(2020, 0, 1);
  const caExtensions = (pathLength?: number) => [
    new x509.BasicConstraintsExtension(true, pathLength, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
  ];
  const rootKeys = await generateKeys();
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Weft Simulator Root CA G2, O=Weft Simulator',
    notBefore: new Date(base),
    notAfter: new Date(base + 25 * YEAR),
    keys: rootKeys,
    signingAlgorithm: ALG,
    extensions: caExtensions(),
  });
  const legacyKeys = await generateKeys();
  const cross = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: root.subject,
    issuer: 'CN=Weft Simulator Legacy Root, O=Weft Simulator',
    notBefore: new Date(base),
    notAfter: new Date(base + 15 * YEAR),
    publicKey: rootKeys.publicKey,
    signingKey: legacyKeys.privateKey,
    signingAlgorithm: ALG,
    extensions: caExtensions(),
  });
  const intermediateKeys = await generateKeys();
  const intermediate = await x509.X509CertificateGenerator.create({
    serialNumber: '03',
    subject: 'CN=Weft Simulator Secure Server CA G2, O=Weft Simulator',
    issuer: root.subject,
    notBefore: new Date(base),
    notAfter: new Date(base + 20 * YEAR),
    publicKey: intermediateKeys.publicKey,
    signingKey: rootKeys.privateKey,
    signingAlgorithm: ALG,
    extensions: caExtensions(0),
  });
  return {
    root: { keys: rootKeys, certificate: root },
    intermediate: { keys: intermediateKeys, certificate: intermediate },
    cross: cross.toString('pem'),
  };
}

let authorities: ReturnType<typeof createAuthorities> | undefined;

/** Issues a leaf under the shared simulator CA; the CA is created once per process. */
export async function issuePemChain(leaf: LeafRequest): Promise<PemChain> {
  authorities ??= createAuthorities();
  const x509 = await loadX509();
  const { root, intermediate, cross } = await authorities;
  const leafKeys = await generateKeys();
  const subject = [
    `CN=${leaf.commonName}`,
    ...(leaf.organization ? [`O=${leaf.organization}`] : []),
  ];
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: leaf.serialHex,
    subject: subject.join(', '),
    issuer: intermediate.certificate.subject,
    notBefore: leaf.notBefore,
    notAfter: leaf.notAfter,
    publicKey: leafKeys.publicKey,
    signingKey: intermediate.keys.privateKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.SubjectAlternativeNameExtension(
        leaf.subjectAlternativeNames.map((value) => ({ type: 'dns' as const, value })),
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    ],
  });
  return {
    certificate: certificate.toString('pem'),
    intermediate: intermediate.certificate.toString('pem'),
    cross,
    root: root.certificate.toString('pem'),
  };
}
