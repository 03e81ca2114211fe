import { isLoopbackHost } from "../system/loopback.ts";
import { HttpError } from "./http-error.ts";

/** `localhost:7433` → `localhost`, `[::1]:7433` → `::1`; lower-cased, without a trailing dot. */
function hostNameOf(hostHeader: string): string {
  let name = hostHeader.trim().toLowerCase();
  if (name.startsWith("[")) {
    const end = name.indexOf("]");
    name = name.slice(1, end === -1 ? undefined : end);
  } else if (name.indexOf(":") === name.lastIndexOf(":")) name = name.split(":")[0]!;
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

/**
 * The Host check of a server bound to `bindHost`, or undefined when there is none to make. A web page
 * can point a name of its own at 127.0.0.1 (DNS rebinding) and then read a loopback server as its own
 * origin; its requests still carry that name in Host. So a server on loopback answers only loopback
 * names and addresses, its bound address and the names in `allowedHosts` (any port). A server bound
 * beyond loopback is reached by whatever names its network gives it: it checks none, and its token
 * guards it. A request without Host (HTTP/1.0) comes from no browser and passes.
 */
export function hostCheck(bindHost: string, allowedHosts: readonly string[] = []): ((request: Request) => void) | undefined {
  if (!isLoopbackHost(hostNameOf(bindHost))) return undefined;
  const allowed = new Set([bindHost, ...allowedHosts].map(hostNameOf));
  return (request) => {
    const header = request.headers.get("host");
    if (header === null) return;
    const name = hostNameOf(header);
    if (isLoopbackHost(name) || allowed.has(name)) return;
    throw new HttpError(
      403,
      `the Host header names ${JSON.stringify(header)}, which is not this server's address; a server on loopback answers only loopback names (add the name to allowedHosts in config.json to reach it by that name)`,
    );
  };
}
