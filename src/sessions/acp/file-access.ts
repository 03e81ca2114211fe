import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { AcpRefusal } from "./acp-refusal.ts";
import type * as acp from "@agentclientprotocol/sdk";

/** The real path of `path`, resolving symlinks through its nearest existing ancestor. */
function realPathOf(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    existing = parent;
  }
  return resolve(realpathSync(existing), ...rest);
}

const inside = (root: string, path: string) => {
  const between = relative(root, path);
  return between === "" || (!between.startsWith("..") && !isAbsolute(between));
};

/**
 * Serves the agent's fs/* requests, only inside the session's folders (its cwd and added
 * directories), after resolving symlinks; anything else is an ACP error the caller logs.
 */
export class FileAccess {
  private readonly roots: string[];
  /** Single files the agent may read though they are elsewhere: the prompts' attachments. */
  private readonly readable = new Set<string>();

  constructor(roots: string[]) {
    this.roots = roots.map((root) => realPathOf(resolve(root)));
  }

  grantRead(path: string): void {
    this.readable.add(realPathOf(resolve(path)));
  }

  /** The real path of `path` when it is inside the session's folders; an ACP error otherwise. */
  resolveInside(path: string): string {
    if (!isAbsolute(path)) throw new AcpRefusal("invalidParams", `${path} is not an absolute path`);
    const real = realPathOf(resolve(path));
    if (!this.roots.some((root) => inside(root, real))) {
      throw new AcpRefusal("invalidParams", `${path} is outside the session's folders`);
    }
    return real;
  }

  read(request: acp.ReadTextFileRequest): acp.ReadTextFileResponse {
    const real = isAbsolute(request.path) ? realPathOf(resolve(request.path)) : undefined;
    const path = real !== undefined && this.readable.has(real) ? real : this.resolveInside(request.path);
    let content: string;
    try {
      content = readFileSync(path, "utf8");
    } catch (error) {
      throw new AcpRefusal("resourceNotFound", `${request.path}: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}`);
    }
    if (request.line == null && request.limit == null) return { content };
    const lines = content.split("\n");
    const start = Math.max((request.line ?? 1) - 1, 0);
    const end = request.limit == null ? lines.length : start + request.limit;
    return { content: lines.slice(start, end).join("\n") };
  }

  write(request: acp.WriteTextFileRequest): acp.WriteTextFileResponse {
    const path = this.resolveInside(request.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, request.content);
    return {};
  }
}
