import type { Project } from "../../../schemas/projects.ts";
import type { StreamedEvent } from "../shared/event-stream.ts";

/** The project events, as the stream's `kind=` patterns. */
export const PROJECT_KINDS = ["project.created", "project.updated", "project.deleted"];

/** Applies a project event: the project it carries is kept, or forgotten by its id once deleted. */
export function applyProjectEvent(event: StreamedEvent, changes: { keep(project: Project): void; forget(id: string): void }): void {
  const { project } = event.payload as { project: Project };
  if (event.kind === "project.deleted") changes.forget(project.id);
  else changes.keep(project);
}
