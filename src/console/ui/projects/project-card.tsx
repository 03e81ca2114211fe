import { useState } from "preact/hooks";
import type { Project, ProjectLocation } from "../../../schemas/projects.ts";
import { api } from "../shared/api.ts";
import { ConfirmStep } from "../shared/confirm-button.tsx";
import { InlineForm } from "../shared/inline-form.tsx";
import { ProjectWorktrees } from "./project-worktrees.tsx";
import { ChangesToggle } from "../git/changes-panel.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import { filesHref, terminalHref } from "../shell/router.ts";

/** The change a card has opened in place, one at a time. */
type OpenStep = "rename" | "add-location" | "delete" | null;

function worktreeBaseText(project: Project): string {
  const base = project.worktreeBase;
  if (!base) return "Not a git repository";
  return base.remote ? `Worktrees from ${base.remote}/${base.branch}` : `Worktrees from the local branch ${base.branch}`;
}

/** The project's folders; any but the last can be forgotten (the folder itself stays). */
function LocationList(props: { projectPath: string; locations: ProjectLocation[]; busy: boolean; onForget: (location: ProjectLocation) => void }) {
  const { locations, busy, onForget } = props;
  return (
    <ul class="project-locations" aria-label="Locations">
      {locations.map((location) => (
        <li key={location.id} class="project-location">
          <span class="project-path">{location.folderPath}</span>
          <span class="badge">{location.isGitRepository ? "git" : "folder"}</span>
          {location.isGitRepository && (
            <ChangesToggle source={`${props.projectPath}/locations/${encodeURIComponent(location.id)}`} name={location.folderPath} />
          )}
          {locations.length > 1 && (
            <button type="button" class="quiet-button" disabled={busy} onClick={() => onForget(location)}>
              Forget<span class="visually-hidden"> {location.folderPath}</span>
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

/** One project: what it is, its locations and worktrees, and the changes that can be made to it. */
export function ProjectCard({ project, onChanged, onDeleted }: { project: Project; onChanged: (project: Project) => void; onDeleted: (id: string) => void }) {
  const [step, setStep] = useState<OpenStep>(null);
  const [showWorktrees, setShowWorktrees] = useState(false);
  const { busy, error, run } = useAction();
  const path = `/v1/projects/${encodeURIComponent(project.id)}`;
  const worktreesId = `worktrees-${project.id}`;

  const change = (call: () => Promise<Project>) =>
    run(async () => {
      onChanged(await call());
      setStep(null);
    });
  const toggle = (wanted: OpenStep) => setStep((current) => (current === wanted ? null : wanted));

  return (
    <li class="card project-card" data-project={project.id}>
      <div class="card-title">
        <h3>{project.name}</h3>
        {project.isScratch && <span class="badge">Scratch</span>}
      </div>
      {project.repoUrl && <p class="project-path">{project.repoUrl}</p>}
      <p class="quiet">{worktreeBaseText(project)}</p>
      <LocationList
        projectPath={path}
        locations={project.locations}
        busy={busy}
        onForget={(location) => change(() => api<Project>("DELETE", `${path}/locations/${encodeURIComponent(location.id)}`))}
      />
      <div class="project-actions">
        <button type="button" class="quiet-button" aria-expanded={step === "rename"} disabled={busy} onClick={() => toggle("rename")}>
          Rename
        </button>
        <button type="button" class="quiet-button" aria-expanded={step === "add-location"} disabled={busy} onClick={() => toggle("add-location")}>
          Add location
        </button>
        <button type="button" class="quiet-button" aria-expanded={showWorktrees} aria-controls={worktreesId} onClick={() => setShowWorktrees(!showWorktrees)}>
          Worktrees
        </button>
        <a class="terminal-link" href={terminalHref("project", project.id)}>
          Terminal
        </a>
        <a class="terminal-link" href={filesHref("project", project.id)}>
          Files
        </a>
        <button type="button" class="quiet-button" aria-expanded={step === "delete"} disabled={busy} onClick={() => toggle("delete")}>
          Delete
        </button>
      </div>
      {step === "rename" && (
        <InlineForm
          label="Name"
          initial={project.name}
          submitLabel="Save"
          busy={busy}
          onSubmit={(name) => change(() => api<Project>("PATCH", path, { name }))}
          onCancel={() => setStep(null)}
        />
      )}
      {step === "add-location" && (
        <InlineForm
          label="Folder path"
          submitLabel="Add"
          busy={busy}
          onSubmit={(folderPath) => change(() => api<Project>("POST", `${path}/locations`, { folderPath }))}
          onCancel={() => setStep(null)}
        />
      )}
      {step === "delete" && (
        <ConfirmStep
          question={`Delete ${project.name}?`}
          note="Its worktrees go too, and the folders the server made for it; folders you added stay."
          busy={busy}
          onConfirm={() =>
            run(async () => {
              await api<Project>("DELETE", path);
              onDeleted(project.id);
            })
          }
          onCancel={() => setStep(null)}
        />
      )}
      <Alert error={error} />
      {showWorktrees && <ProjectWorktrees id={worktreesId} projectId={project.id} />}
    </li>
  );
}
