import { useEffect, useRef, useState } from "preact/hooks";
import type { Project } from "../../../schemas/projects.ts";
import type { SessionDetail } from "../../../schemas/sessions.ts";
import type { PtyTerminal } from "../../../schemas/terminals.ts";
import { ApiError, api } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { PageHeading } from "../shell/page-heading.tsx";
import { pageHref, sessionHref } from "../shell/router.ts";
import type { CellSize } from "./emulator-api.ts";
import { TerminalList } from "./terminal-list.tsx";
import { TerminalView } from "./terminal-view.tsx";
import { type TerminalPlace, useTerminals } from "./use-terminals.ts";

/** Whose terminals the page shows: a project's (in its first folder), or a session's (in its worktree or folder). */
export interface TerminalOwner {
  kind: "project" | "session";
  id: string;
}

async function readPlace(owner: TerminalOwner): Promise<TerminalPlace> {
  const id = encodeURIComponent(owner.id);
  if (owner.kind === "project") {
    const project = await api<Project>("GET", `/v1/projects/${id}`);
    return { projectId: project.id, sessionId: null, name: project.name };
  }
  const { session } = await api<SessionDetail>("GET", `/v1/sessions/${id}`);
  return { projectId: session.projectId, sessionId: session.id, name: session.title };
}

/** A shell on the server's machine in a project's or a session's folder, from any browser, a phone's too. */
export function TerminalPage({ owner }: { owner: TerminalOwner }) {
  const [place, setPlace] = useState<TerminalPlace | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    readPlace(owner).then(setPlace, (failure: unknown) => setError(failureText(failure)));
  }, []);
  return (
    <section class="terminal-page">
      <header class="terminal-header">
        <a href={owner.kind === "project" ? pageHref("projects") : sessionHref(owner.id)} class="back">
          ← {owner.kind === "project" ? "Projects" : "Session"}
        </a>
        <PageHeading text={place ? `Terminal · ${place.name}` : "Terminal"} />
      </header>
      <Alert error={error} />
      {place ? <Terminals place={place} /> : !error && <p class="quiet">Loading…</p>}
    </section>
  );
}

/**
 * The place's terminals and the one shown. First shown: the newest running one (a phone coming back
 * finds its shell), else a new one, made once the emulator knows how many cells fit.
 */
function Terminals({ place }: { place: TerminalPlace }) {
  const list = useTerminals(place);
  const [shownId, setShownId] = useState<string | null>(null);
  const action = useAction();
  const size = useRef<CellSize | null>(null);
  const items = useRef(list.items);
  items.current = list.items;
  const firstChosen = useRef(false);
  /** Why this server refuses terminals (plain http beyond loopback): then the page says only that. */
  const [refusal, setRefusal] = useState<string | null>(null);

  const create = () =>
    action.run(async () => {
      const body = { projectId: place.projectId, ...(place.sessionId ? { sessionId: place.sessionId } : {}), ...(size.current ?? { cols: 80, rows: 24 }) };
      try {
        const created = await api<PtyTerminal>("POST", "/v1/terminals", body);
        list.add(created);
        setShownId(created.id);
      } catch (failure) {
        if (!(failure instanceof ApiError && failure.status === 403)) throw failure;
        setRefusal(failure.message);
      }
    });
  const chooseFirst = () => {
    if (firstChosen.current || items.current === null || size.current === null) return;
    firstChosen.current = true;
    const running = items.current.filter((terminal) => terminal.state === "running").at(-1);
    if (running) setShownId(running.id);
    else void create();
  };
  useEffect(chooseFirst, [list.items]);
  const close = (terminal: PtyTerminal) =>
    action.run(async () => {
      await api<PtyTerminal>("DELETE", `/v1/terminals/${encodeURIComponent(terminal.id)}`);
      list.forget(terminal.id);
      setShownId((shown) => (shown === terminal.id ? null : shown));
    });

  if (refusal) return <Alert error={refusal} />;
  return (
    <>
      <TerminalList terminals={list.items ?? []} shownId={shownId} busy={action.busy} show={setShownId} close={close} create={create} />
      <Alert error={list.error ?? action.error} />
      {firstChosen.current && shownId === null && !action.busy && <p class="quiet">No terminal is shown: choose one above, or open a new one.</p>}
      <TerminalView
        terminalId={shownId}
        label={`Terminal in ${place.name}`}
        sized={(fitted) => {
          size.current = fitted;
          chooseFirst();
        }}
      />
    </>
  );
}
