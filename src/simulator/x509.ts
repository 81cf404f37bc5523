/**
 * `@peculiar/x509`, loaded on first use: only parsing a CSR and issuing a PEM chain need it, and
 * loading it (with its ASN.1 schemas) was about an eighth of `npm start`'s start-up on the embedded
 * simulator. WebCrypto is its crypto provider.
 */
import { webcrypto } from 'node:crypto';
import type * as X509Library from '@peculiar/x509';

type X509 = typeof X509Library;

let loading: Promise<X509> | undefined;

export function loadX509(): Promise<X509> {
  loading ??= import('@peculiar/x509').then((x509) => {
    x509.cryptoProvider.set(webcrypto as never);
    return x509;
  });
  return loading;
}
