import { Type } from "@sinclair/typebox";
import type { ConsoleAssets } from "../../console/console-assets.ts";
import type { ConsoleLinks } from "../../console/console-links.ts";
import { NotFoundError } from "../../errors.ts";
import { defineRoute } from "../route.ts";
import { chooseEncoding, FILE_PREFERENCE } from "../content-encoding.ts";
import { ConsoleLink, ConsoleLinkBody } from "../../schemas/console.ts";

/**
 * The console's pages run only what the server itself sent: no inline script or style, no other
 * origin, no framing by another site. Its calls go to this server's `/v1` with the bearer header.
 */
/**
 * `style-src-attr 'unsafe-inline'`: the terminal emulator colours a cell outside its palette (24-bit
 * colours, a selection's contrast) with a style attribute. Style elements stay refused, and with
 * `img-src 'self' data:` a style attribute cannot load anything from elsewhere.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "frame-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const CONSOLE_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

async function serveFile(assets: ConsoleAssets, path: string, request: Request): Promise<Response> {
  const file = await assets.get(path, chooseEncoding(request.headers.get("accept-encoding"), FILE_PREFERENCE));
  if (!file) throw new NotFoundError(`no route GET ${path}`);
  const headers: Record<string, string> = {
    ...CONSOLE_HEADERS,
    "content-type": file.contentType,
    etag: file.etag,
    "cache-control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
    // A cache keeps one copy per encoding the client takes.
    vary: "accept-encoding",
    ...(file.encoding ? { "content-encoding": file.encoding } : {}),
  };
  if (request.headers.get("if-none-match") === file.etag) return new Response(null, { status: 304, headers });
  return new Response(file.body, { headers });
}

export function consoleRoutes(assets: ConsoleAssets, links: ConsoleLinks) {
  return [
    defineRoute({
      method: "GET",
      path: "/",
      tag: "console",
      summary: "The console: the web client",
      publicFile: true,
      response: Type.String(),
      responseType: "text/html",
      handler: ({ request }) => serveFile(assets, "/", request),
    }),
    defineRoute({
      method: "GET",
      path: "/:file",
      tag: "console",
      summary: "One of the console's scripts or styles",
      publicFile: true,
      params: Type.Object({ file: Type.String() }),
      response: Type.String(),
      responseType: "*/*",
      handler: ({ params, request }) => serveFile(assets, `/${params.file}`, request),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/console/links",
      tag: "console",
      summary: "A one-time code for a console link (what `atrium console` prints and the console's Open on your phone shows): `<server>/#code=<code>`",
      successStatus: 201,
      body: ConsoleLinkBody,
      response: ConsoleLink,
      handler: ({ body }) => links.create(body.deviceName),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/console/sign-in",
      tag: "console",
      summary: "The console exchanges a link's code, once, for a named token of its own",
      ticketed: true,
      moreErrors: { "401": "The code is wrong, used or expired." },
      body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }) }),
      response: Type.Object({ name: Type.String(), token: Type.String() }, { $id: "ConsoleSignIn" }),
      successStatus: 201,
      handler: ({ body }) => links.exchange(body.code),
    }),
  ];
}
