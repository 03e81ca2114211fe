import type { KeyObject, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { TlsFiles } from "./server-options.ts";
import { nodeCrypto } from "../system/node-crypto.ts";

/**
 * The certificate and key to serve https with, read and checked before the socket is bound: a file
 * that cannot be read, is not PEM, or a key that is not the certificate's, says which and why.
 */
export function readTls(files: TlsFiles): { cert: string; key: string } {
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch (error) {
      throw new Error(`the TLS ${what} ${path} cannot be read: ${(error as Error).message}`);
    }
  };
  const cert = read(files.certFile, "certificate");
  const key = read(files.keyFile, "key");
  const { X509Certificate, createPrivateKey } = nodeCrypto();
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new Error(`${files.certFile} is not a PEM certificate: ${(error as Error).message}`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    throw new Error(`${files.keyFile} is not a PEM private key: ${(error as Error).message}`);
  }
  if (!certificate.checkPrivateKey(privateKey)) throw new Error(`${files.keyFile} is not the key of the certificate ${files.certFile}`);
  return { cert, key };
}
