/** Reading the servers' session lists as bytes on the wire, and their memory. */
import { Agent, request } from "node:http";
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from "node:zlib";
import { descendantPids, rssBytes } from "../processes.ts";
import type { BenchServer } from "./servers.ts";

/** What a browser sends; each server picks what it likes of it. */
export const BROWSER_ENCODINGS = "gzip, deflate, br, zstd";

/** Resident memory of the server (NaN when it cannot be read) and of anything it started that is still there. */
export function treeRssBytes(pid: number): number {
  return descendantPids(pid).reduce((sum, each) => sum + (rssBytes(each) || 0), rssBytes(pid));
}

/** Kept-alive connections, as a browser reuses one for the pages of a list. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** node:http leaves the body as sent (`encoded`), where fetch would have decoded it already. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: NodeJS.Dict<string | string[]>; encoded: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent, headers: { ...headers, "accept-encoding": BROWSER_ENCODINGS, accept: "application/json" } }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, encoded: Buffer.concat(chunks) }));
      incoming.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

const DECODERS: Record<string, (body: Buffer) => Buffer> = {
  identity: (body) => body,
  gzip: gunzipSync,
  br: brotliDecompressSync,
  zstd: zstdDecompressSync,
  deflate: inflateSync,
};

function decode(body: Buffer, encoding = "identity"): Buffer {
  const decoder = DECODERS[encoding];
  if (!decoder) throw new Error(`unknown content-encoding ${encoding}`);
  return decoder(body);
}

/** The whole list, page after page as the server's own client asks for it, counted before and after decoding. */
export async function readFullList(server: BenchServer, base: string) {
  const list = { requests: 0, records: 0, encodedBytes: 0, decodedBytes: 0, encodings: [] as string[] };
  let next: string | undefined = server.fullListPath;
  while (next !== undefined) {
    const answer = await rawGet(base + next, server.headers());
    if (answer.status !== 200) throw new Error(`${server.name}: GET ${next} answered ${answer.status}`);
    const encoding = answer.headers["content-encoding"] as string | undefined;
    const decoded = decode(answer.encoded, encoding);
    const body: unknown = JSON.parse(decoded.toString("utf8"));
    list.requests++;
    list.records += server.records(body).length;
    list.encodedBytes += answer.encoded.length;
    list.decodedBytes += decoded.length;
    list.encodings.push(encoding ?? "identity");
    next = server.nextPage(body, answer.headers.link as string | undefined);
  }
  return list;
}
