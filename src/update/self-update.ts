import { replaceProblem } from "./executable-swap.ts";

/** What a process needs to replace its own executable. */
export interface SelfUpdate {
  executable: string;
  /** The Ed25519 key manifests must be signed with. */
  publicKey: string;
}

/**
 * Whether this build can update itself: it must be a compiled release build (with an update key) whose
 * folder it may write to. Returns what it needs, or the sentence saying why not.
 */
export function selfUpdateCapability(compiled: boolean, publicKey: string | null, executable: string): SelfUpdate | string {
  if (!compiled) return "this Atrium runs from source and cannot replace itself; update the checkout, or install a release with install.sh";
  if (publicKey === null) return "this build has no update key (a local build), so it cannot check or apply updates; install a release with install.sh";
  return replaceProblem(executable) ?? { executable, publicKey };
}
