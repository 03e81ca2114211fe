// Replaced by `bun build --define` in release builds (release/compile.ts `updatePublicKey`): the
// Ed25519 public key (SPKI PEM) that release manifests must be signed with.
declare const BUILD_UPDATE_PUBLIC_KEY: string | undefined;

/**
 * The public key this build trusts for updates, or null when it has none: a run from source or a local
 * `npm run build`, which then cannot update itself (there is nothing to check a manifest against).
 */
export function embeddedUpdatePublicKey(): string | null {
  return typeof BUILD_UPDATE_PUBLIC_KEY === "string" && BUILD_UPDATE_PUBLIC_KEY !== "" ? BUILD_UPDATE_PUBLIC_KEY : null;
}
