import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify } from "node:crypto";

/**
 * A browser's side of Web Push, written from the RFCs with node:crypto only (not with the web-push
 * package the server uses, so the two cannot share a mistake): its P-256 key pair and auth secret,
 * the decryption of an aes128gcm push (RFC 8188 + RFC 8291), and the VAPID JWT's check (RFC 8292).
 */
export class PushBrowser {
  private readonly ecdh = createECDH("prime256v1");
  readonly publicKey: Buffer;
  readonly authSecret = randomBytes(16);

  constructor() {
    this.publicKey = this.ecdh.generateKeys();
  }

  /** As PushSubscription.toJSON() gives it. */
  subscription(endpoint: string): { endpoint: string; keys: { p256dh: string; auth: string } } {
    return { endpoint, keys: { p256dh: this.publicKey.toString("base64url"), auth: this.authSecret.toString("base64url") } };
  }

  /** RFC 8291 §3.4 and RFC 8188 §2: the plaintext of one aes128gcm push. */
  decrypt(body: Uint8Array): string {
    const data = Buffer.from(body);
    // The header: salt (16), record size (4), key id length (1), key id (the sender's public key).
    const salt = data.subarray(0, 16);
    const recordSize = data.readUInt32BE(16);
    const idLength = data[20]!;
    const senderPublicKey = data.subarray(21, 21 + idLength);
    if (idLength !== 65 || senderPublicKey[0] !== 4) throw new Error(`the key id is not an uncompressed P-256 point (${idLength} bytes)`);
    const records = data.subarray(21 + idLength);
    if (records.length > recordSize) throw new Error("a push has a single record");

    const hmac = (key: Buffer, ...parts: Buffer[]) => createHmac("sha256", key).update(Buffer.concat(parts)).digest();
    const ecdhSecret = this.ecdh.computeSecret(senderPublicKey);
    // PRK_key = HMAC-SHA-256(auth_secret, ecdh_secret); IKM = HKDF-Expand(PRK_key, key_info, 32)
    const prkKey = hmac(this.authSecret, ecdhSecret);
    const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), this.publicKey, senderPublicKey]);
    const ikm = hmac(prkKey, keyInfo, Buffer.from([1]));
    // RFC 8188: PRK = HKDF-Extract(salt, IKM); CEK and NONCE are its first 16 and 12 bytes of expansion.
    const prk = hmac(salt, ikm);
    const cek = hmac(prk, Buffer.from("Content-Encoding: aes128gcm\0"), Buffer.from([1])).subarray(0, 16);
    const nonce = hmac(prk, Buffer.from("Content-Encoding: nonce\0"), Buffer.from([1])).subarray(0, 12);

    const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
    decipher.setAuthTag(records.subarray(records.length - 16));
    const padded = Buffer.concat([decipher.update(records.subarray(0, records.length - 16)), decipher.final()]);
    // The last record ends with the delimiter 2, then any zero padding.
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end--;
    if (padded[end] !== 2) throw new Error("the last record's padding delimiter is missing");
    return padded.subarray(0, end).toString("utf8");
  }
}

export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

/**
 * Checks `Authorization: vapid t=<jwt>, k=<key>` (RFC 8292 §3): the JWT's ES256 signature with the
 * key `k`, and returns its claims and that key.
 */
export function verifyVapid(authorization: string | null): { claims: VapidClaims; publicKey: string; header: Record<string, unknown> } {
  const match = /^vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$/.exec(authorization ?? "");
  if (!match) throw new Error(`not a VAPID authorization: ${authorization}`);
  const [, jwt, k] = match as unknown as [string, string, string];
  const [header, payload, signature] = jwt.split(".") as [string, string, string];
  const point = Buffer.from(k, "base64url");
  if (point.length !== 65 || point[0] !== 4) throw new Error("k is not an uncompressed P-256 point");
  const key = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: point.subarray(1, 33).toString("base64url"), y: point.subarray(33).toString("base64url") },
    format: "jwk",
  });
  const signed = verify("sha256", Buffer.from(`${header}.${payload}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"));
  if (!signed) throw new Error("the VAPID JWT's signature does not verify with k");
  return {
    header: JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as Record<string, unknown>,
    claims: JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as VapidClaims,
    publicKey: k,
  };
}

/** How the push service answers a request: a status and headers, once `after` (if given) resolves. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  after?: Promise<unknown>;
}

export interface ReceivedPush {
  path: string;
  headers: Headers;
  body: Uint8Array;
  /** The status it was answered with. */
  status: number;
}

/**
 * A push service on loopback (RFC 8030 §5): takes `POST /push/<name>`, answers 201 with a Location,
 * or what a test queued for that path (a 410, a 500 before the 201, a 429 with Retry-After).
 */
export class LocalPushService {
  readonly received: ReceivedPush[] = [];
  private readonly answers = new Map<string, Answer[]>();
  private readonly server: ReturnType<typeof Bun.serve>;
  private waiters: Array<() => void> = [];

  constructor() {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        const path = new URL(request.url).pathname;
        if (request.method !== "POST" || !path.startsWith("/push/")) return new Response("not found", { status: 404 });
        const body = new Uint8Array(await request.arrayBuffer());
        const answer = this.answers.get(path)?.shift() ?? { status: 201, headers: { location: `/messages/${this.received.length}` } };
        this.received.push({ path, headers: request.headers, body, status: answer.status });
        for (const wake of this.waiters.splice(0)) wake();
        await answer.after;
        return new Response(answer.status >= 400 ? `answer ${answer.status}` : null, { status: answer.status, headers: answer.headers });
      },
    });
  }

  get origin(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  endpoint(name: string): string {
    return `${this.origin}/push/${name}`;
  }

  /** The next requests to `/push/<name>` are answered so, in order; then 201 again. */
  answer(name: string, ...answers: Answer[]): void {
    this.answers.set(`/push/${name}`, [...(this.answers.get(`/push/${name}`) ?? []), ...answers]);
  }

  to(name: string): ReceivedPush[] {
    return this.received.filter((push) => push.path === `/push/${name}`);
  }

  /** Waits until `/push/<name>` got `count` requests. */
  async waitFor(name: string, count = 1, timeoutMs = 10_000): Promise<ReceivedPush[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.to(name).length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`/push/${name} got ${this.to(name).length} of ${count} pushes in ${timeoutMs} ms`);
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), Bun.sleep(Math.min(left, 200))]);
    }
    return this.to(name);
  }

  stop(): Promise<void> {
    return this.server.stop(true);
  }
}
