import { useState } from "preact/hooks";
import type { Project } from "../../../schemas/projects.ts";
import { AddFolderForm } from "./add-folder-form.tsx";
import { api } from "../shared/api.ts";
import { CloneProjectForm } from "./clone-project-form.tsx";
import { ProjectCard } from "./project-card.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import { useProjects } from "./use-projects.ts";
import { MoreOnScroll } from "../shared/more-on-scroll.tsx";
import { SearchField } from "../shared/search-field.tsx";
import { PageHeading } from "../shell/page-heading.tsx";

/** Which way of adding a project is open; the forms stay mounted, so a clone keeps its progress while hidden. */
type Adder = "folder" | "clone" | null;

/** The projects on this server, followed live: adding them (folder, clone, scratch) and changing each. */
export function ProjectsPage() {
  const [search, setSearch] = useState("");
  const list = useProjects(search);
  const { items: projects, error, keep, forget } = list;
  const [adder, setAdder] = useState<Adder>(null);
  const scratch = useAction();
  const added = (project: Project) => {
    keep(project);
    setAdder(null);
  };
  const toggle = (wanted: Adder) => setAdder((current) => (current === wanted ? null : wanted));

  return (
    <section class="projects-page">
      <header class="page-header">
        <PageHeading text="Projects" />
      </header>
      <div class="project-adders">
        <button type="button" class="quiet-button" aria-expanded={adder === "folder"} aria-controls="add-folder" onClick={() => toggle("folder")}>
          Add a folder
        </button>
        <button type="button" class="quiet-button" aria-expanded={adder === "clone"} aria-controls="clone-project" onClick={() => toggle("clone")}>
          Clone a repository
        </button>
        <button
          type="button"
          class="quiet-button"
          disabled={scratch.busy}
          onClick={() => scratch.run(async () => keep(await api<Project>("POST", "/v1/projects", { isScratch: true })))}
        >
          New scratch project
        </button>
      </div>
      <Alert error={scratch.error} />
      <AddFolderForm id="add-folder" hidden={adder !== "folder"} onAdded={added} />
      <CloneProjectForm id="clone-project" hidden={adder !== "clone"} onCloned={added} />
      <Alert error={error} />
      {(search || projects?.length !== 0) && <SearchField label="Find projects" placeholder="Name" onSearch={setSearch} />}
      {projects === null ? (
        !error && <p class="quiet">{search ? "Finding…" : "Loading…"}</p>
      ) : projects.length === 0 ? (
        <p class="quiet">{search ? "No project's name holds that." : "No projects yet: add a folder, clone a repository or start a scratch project."}</p>
      ) : (
        <ul class="cards project-cards">
          {projects.map((project) => (
            <ProjectCard key={project.id} project={project} onChanged={keep} onDeleted={forget} />
          ))}
        </ul>
      )}
      {projects !== null && (
        <MoreOnScroll hasMore={list.hasMore} loadingMore={list.loadingMore} more={list.more} shownCount={projects.length} label="Show more projects" />
      )}
    </section>
  );
}
