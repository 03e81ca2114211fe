import type { StoredProject } from "../store/project-repository.ts";
import type { WorktreeBase } from "../schemas/projects.ts";

/** The base new worktrees branch from: what the user chose, else what was detected, else origin/main. */
export function effectiveWorktreeBase(project: StoredProject): WorktreeBase {
  return {
    remote: project.customWorktreeRemote ?? project.detectedRemote ?? "origin",
    branch: project.customWorktreeBranch ?? project.detectedBranch ?? "main",
  };
}
