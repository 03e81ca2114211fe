import { writeFileSync } from "node:fs";
import { join } from "node:path";
import selfsigned from "selfsigned";

export interface TestCertificate {
  certFile: string;
  keyFile: string;
  cert: string;
}

/** A self-signed certificate made in the test (as mkcert would make one), for these DNS names and IP addresses. */
export async function makeTestCertificate(dir: string, names: { dns: string[]; ips: string[] }): Promise<TestCertificate> {
  const altNames = [...names.dns.map((value) => ({ type: 2, value })), ...names.ips.map((ip) => ({ type: 7, ip }))];
  const pems = await selfsigned.generate([{ name: "commonName", value: names.dns[0] ?? "atrium-test" }], {
    keySize: 2048,
    days: 1,
    algorithm: "sha256",
    extensions: [{ name: "subjectAltName", altNames }],
  } as Parameters<typeof selfsigned.generate>[1]);
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  writeFileSync(certFile, pems.cert);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  return { certFile, keyFile, cert: pems.cert };
}
