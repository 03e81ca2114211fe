import type { Harness } from "../../../schemas/harnesses.ts";

export const READINESS: Record<Harness["readiness"]["state"], string> = { ready: "Ready", missing: "Not installed", error: "Error" };

export const AUTH: Record<Harness["auth"]["state"], string> = {
  authenticated: "Signed in",
  unauthenticated: "Signed out",
  checking: "Checking…",
  unknown: "Sign-in unknown",
};

/** A harness's address in the interface; its routes (install, accounts, …) hang under it. */
export const harnessPath = (harnessId: string) => `/v1/harnesses/${encodeURIComponent(harnessId)}`;
