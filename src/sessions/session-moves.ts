import type { Static, TSchema } from "@sinclair/typebox";
import type { Clock, ClockTimer } from "../clock.ts";
import type { Logger } from "../logging/logger.ts";
import type { PeerCall } from "../machines/peer-client.ts";
import type { ProjectService } from "../projects/project-service.ts";
import type { WorktreeService } from "../projects/worktree-service.ts";
import type { Store } from "../store/database.ts";
import type { SessionMoveRepository, StoredMove } from "../store/session-move-repository.ts";
import type { StoredSession } from "../store/session-repository.ts";
import type { Session } from "../schemas/sessions.ts";
import { type MovePackage, MoveState } from "../schemas/session-moves.ts";
import { ConflictError, NotFoundError, UpstreamError } from "../errors.ts";
import { applyChanges, receiveCommits } from "../git/branch-transfer.ts";
import { runGit } from "../git/git-runner.ts";
import { PeerCallError } from "../machines/peer-client.ts";
import { newId } from "../ids.ts";
import { packSession, storeArrived, type ArrivedFolder, type MovePackageDeps } from "./move-package.ts";
import type { SessionRecords } from "./session-records.ts";

/** The paired machines, as a move reaches them. */
export interface MovePeers {
  selfId: string;
  selfName: string;
  /** A paired machine's name; 404 when none of that id is paired. */
  peerName(machineId: string): string;
  call<S extends TSchema>(machineId: string, call: Omit<PeerCall<S>, "token" | "timeoutMs"> & { timeoutMs?: number }): Promise<Static<S>>;
}

export interface SessionMovesDeps extends MovePackageDeps {
  store: Store;
  records: SessionRecords;
  moves: SessionMoveRepository;
  projects: ProjectService;
  worktrees: WorktreeService;
  peers: MovePeers;
  clock: Clock;
  logger: Logger;
  isTurnRunning(sessionId: string): boolean;
  /** Stops the agent of a session that moved away. */
  release(sessionId: string): Promise<void>;
  /** The arrived session's queue goes on. */
  startNext(sessionId: string): void;
  /** How long an unfinished move waits before asking the other machine again. */
  retryMs: number;
  /** How long the target has to store the copy (git and a large conversation take a while). */
  copyTimeoutMs: number;
  /** Test-only: the move waits forever at this step, so that a test can kill the process there (ATRIUM_TEST_MOVE_STOP_AT). */
  stopAt?: string;
}

/** What the target keeps while a move is staged: the copy, and the folder it made for it. */
interface Staged {
  pack: Omit<MovePackage, "tree">;
  folder: ArrivedFolder;
  fromMachineId: string;
}

const moveRef = (moveId: string) => `refs/atrium/moves/${moveId}`;

/**
 * Moves sessions to paired machines, in two phases with a record on each side. The source copies the
 * session to the target, which stores it staged (not live); the source then decides (the commit
 * point: its session ends `moved`, linked to the new one) and the target, told or asking, makes its
 * copy live. Before the decision only the source is live; after it only the target can become live.
 * At start-up and on a timer each side settles its unfinished moves with the other.
 */
export class SessionMoves {
  private retryTimer: ClockTimer | null = null;
  private stopped = false;
  /** Moves this process is making as the source: settling leaves them to their request. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly deps: SessionMovesDeps) {}

  // ——— the source ———

  async move(sessionId: string, machineId: string): Promise<Session> {
    const { peers, records } = this.deps;
    if (machineId === peers.selfId) throw new ConflictError("that is this machine; move the session to another machine of the account");
    const machineName = peers.peerName(machineId);
    const source = records.get(sessionId);
    if (source.move)
      throw new ConflictError(`the session ${source.move.state === "moving" ? "is already moving" : "already moved"} to ${source.move.machineName}`);
    if (this.deps.isTurnRunning(sessionId)) throw new ConflictError("a turn of the session is running: cancel it or wait until it has ended, then move");
    const move: StoredMove = {
      id: newId("mov"),
      role: "source",
      sessionId,
      peerMachineId: machineId,
      peerSessionId: newId("ses"),
      state: "copying",
      package: null,
      createdAt: records.timestamp(),
      updatedAt: records.timestamp(),
    };
    this.inFlight.add(move.id);
    try {
      return await this.make(move, source, machineName);
    } finally {
      this.inFlight.delete(move.id);
    }
  }

  private async make(move: StoredMove, source: StoredSession, machineName: string): Promise<Session> {
    const { peers, records } = this.deps;
    const { sessionId, peerMachineId: machineId } = move;
    this.deps.store.transaction(() => {
      this.deps.moves.insert(move);
      records.update(sessionId, (session) => {
        session.move = { state: "moving", machineId, machineName, sessionId: move.peerSessionId, at: move.createdAt };
      });
    });
    try {
      await this.step("copying");
      const startedMs = this.deps.clock.now();
      const pack = await packSession(this.deps, source, this.deps.projects.get(source.projectId), { moveId: move.id, sessionId: move.peerSessionId });
      const json = JSON.stringify(pack);
      await peers.call(machineId, { method: "POST", path: "/v1/machines/peer/moves", json, answer: MoveState, timeoutMs: this.deps.copyTimeoutMs });
      const { items, details, tree } = pack;
      this.deps.logger.info("copied a session to another machine", {
        moveId: move.id,
        bytes: Buffer.byteLength(json),
        items: items.length,
        details: details.length,
        patchBytes: tree ? Buffer.byteLength(tree.patch) : 0,
        bundleBytes: tree?.bundle ? Buffer.byteLength(tree.bundle) : 0,
        ms: this.deps.clock.now() - startedMs,
      });
    } catch (error) {
      this.abort(move, `the move to ${machineName} did not happen: ${(error as Error).message}`);
      void this.tellPeer(move, "abort");
      throw moveRefusal(error);
    }
    await this.step("staged");
    this.decide(move, machineName);
    await this.step("committed");
    await this.deps.release(sessionId);
    await this.confirm(move);
    return records.view(records.get(sessionId));
  }

  /** The commit point: the session is the target's from here on, and its queued prompts went with it. */
  private decide(move: StoredMove, machineName: string): void {
    this.deps.store.transaction(() => {
      this.deps.moves.setState(move.id, "committed", this.deps.records.timestamp());
      for (const prompt of this.deps.queue.list(move.sessionId)) this.deps.queue.remove(prompt.id);
      this.deps.records.update(move.sessionId, (session) => {
        session.move = { state: "moved", machineId: move.peerMachineId, machineName, sessionId: move.peerSessionId, at: this.deps.records.timestamp() };
        session.sidebarState = "idle";
        session.status = `moved to ${machineName}, where it continues as session ${move.peerSessionId}`;
      });
      this.deps.records.emit(move.sessionId, "session.moved", { machineId: move.peerMachineId, machineName, sessionId: move.peerSessionId });
    });
  }

  /** Before the decision: the session stays here, live, and says why the move did not happen. */
  private abort(move: StoredMove, status: string): void {
    this.deps.store.transaction(() => {
      this.deps.moves.setState(move.id, "aborted", this.deps.records.timestamp());
      this.deps.records.update(move.sessionId, (session) => {
        session.move = null;
        session.status = status;
      });
    });
    this.deps.startNext(move.sessionId);
  }

  /** Tells the target the decision; a target that does not answer asks again itself, and this side retries. */
  private async confirm(move: StoredMove): Promise<void> {
    if (await this.tellPeer(move, "confirm")) this.deps.moves.setState(move.id, "done", this.deps.records.timestamp());
    else this.retryLater();
  }

  private async tellPeer(move: StoredMove, what: "confirm" | "abort"): Promise<boolean> {
    try {
      await this.deps.peers.call(move.peerMachineId, { method: "POST", path: `/v1/machines/peer/moves/${move.id}/${what}`, answer: MoveState });
      return true;
    } catch (error) {
      this.deps.logger.warn(`could not ${what} a session's move on the other machine`, { moveId: move.id, error: (error as Error).message });
      return false;
    }
  }

  // ——— the target ———

  /** The source's copy arrives: stored staged (not live), its branch and changes in a new worktree. Repeated, the same. */
  async stage(fromMachineId: string, pack: MovePackage): Promise<MoveState> {
    const known = this.deps.moves.get(pack.moveId);
    if (known) return { state: known.state };
    const project = this.deps.projects.counterpart(pack.project.id, pack.project.repoKey);
    const location = project?.locations[0];
    if (!project || !location) {
      throw new ConflictError(
        `project "${pack.project.name}" has no location on machine ${this.deps.peers.selfName}: add a location for project "${pack.project.name}" ` +
          `on machine ${this.deps.peers.selfName} (a clone of its repository), then move the session again`,
      );
    }
    await this.step("staging");
    let folder: ArrivedFolder = { projectId: project.id, cwd: location.folderPath, workspaceId: location.id, worktreeId: null, worktreeName: null };
    if (pack.tree) {
      await receiveCommits(location.folderPath, pack.tree, moveRef(pack.moveId));
      const name = pack.tree.branch?.replace(/^atrium\//, "") ?? undefined;
      const made = await this.deps.worktrees.create({ projectId: project.id, sessionId: pack.sessionId, name, startPoint: pack.tree.head });
      await runGit(["update-ref", "-d", moveRef(pack.moveId)], { cwd: location.folderPath });
      folder = { ...folder, cwd: made.path, worktreeId: made.id, worktreeName: made.name };
      try {
        await applyChanges(made.path, pack.tree);
      } catch (error) {
        await this.deps.worktrees.remove(made.id);
        throw error;
      }
    }
    const { tree: _inTheWorktree, ...kept } = pack;
    const staged: Staged = { pack: kept, folder, fromMachineId };
    const now = this.deps.records.timestamp();
    this.deps.moves.insert({
      id: pack.moveId,
      role: "target",
      sessionId: pack.sessionId,
      peerMachineId: fromMachineId,
      peerSessionId: pack.sourceSessionId,
      state: "staged",
      package: JSON.stringify(staged),
      createdAt: now,
      updatedAt: now,
    });
    await this.step("staged-here");
    // Should the source's decision never come (it stopped, its abort crossed this copy), this side asks.
    this.retryLater();
    return { state: "staged" };
  }

  /** The source decided: the staged copy goes live. */
  async confirmed(fromMachineId: string, moveId: string): Promise<MoveState> {
    const move = this.peerMove(fromMachineId, moveId);
    await this.step("confirming");
    if (move.state === "staged") this.goLive(move);
    return { state: this.deps.moves.get(moveId)!.state };
  }

  /** The source gave up before deciding: the staged copy and its worktree go. */
  async aborted(fromMachineId: string, moveId: string): Promise<MoveState> {
    const known = this.deps.moves.get(moveId);
    if (!known) return { state: "unknown" };
    const move = this.peerMove(fromMachineId, moveId);
    if (move.state === "live") throw new ConflictError(`move ${moveId} is live here already`);
    if (move.state === "staged") await this.drop(move);
    return { state: this.deps.moves.get(moveId)!.state };
  }

  /** What this side recorded of a move: the target asks the source for its decision. */
  stateOf(fromMachineId: string, moveId: string): MoveState {
    const move = this.deps.moves.get(moveId);
    if (!move) return { state: "unknown" };
    return { state: this.peerMove(fromMachineId, moveId).state };
  }

  private peerMove(fromMachineId: string, moveId: string): StoredMove {
    const move = this.deps.moves.get(moveId);
    if (!move || move.peerMachineId !== fromMachineId) throw new NotFoundError(`no move ${moveId} with machine ${fromMachineId} is recorded here`);
    return move;
  }

  private goLive(move: StoredMove): void {
    const staged = JSON.parse(move.package!) as Staged;
    const fromName = this.nameOf(staged.fromMachineId);
    this.deps.store.transaction(() => {
      // The source's confirmation and this side's own question can cross: the first one makes it live.
      if (this.deps.moves.get(move.id)?.state !== "staged") return;
      const now = this.deps.records.timestamp();
      const session = storeArrived(
        this.deps,
        staged.pack as MovePackage,
        staged.folder,
        `moved here from ${fromName} (session ${move.peerSessionId} there)`,
        now,
      );
      this.deps.moves.setState(move.id, "live", now);
      const view = this.deps.records.view(session);
      this.deps.records.emit(session.id, "session.created", { session: view });
      this.deps.records.emit(session.id, "session.imported", { fromMachineId: staged.fromMachineId, fromSessionId: move.peerSessionId });
    });
    this.deps.startNext(move.sessionId);
  }

  private async drop(move: StoredMove): Promise<void> {
    const current = this.deps.moves.get(move.id);
    if (current?.state !== "staged") return;
    const staged = JSON.parse(current.package!) as Staged;
    this.deps.moves.setState(move.id, "dropped", this.deps.records.timestamp());
    if (staged.folder.worktreeId) {
      await this.deps.worktrees
        .remove(staged.folder.worktreeId)
        .catch((error: unknown) => this.deps.logger.warn("a dropped move's worktree could not be removed", { moveId: move.id, error }));
    }
  }

  // ——— both: settling unfinished moves ———

  /** At start-up: settles every unfinished move with the other machine, retrying those it cannot reach. */
  start(): Promise<void> {
    return this.settle();
  }

  stop(): void {
    this.stopped = true;
    this.deps.clock.clearTimeout(this.retryTimer ?? undefined);
  }

  private async settle(): Promise<void> {
    let pending = false;
    for (const move of this.deps.moves.unfinished().filter((unfinished) => !this.inFlight.has(unfinished.id))) {
      try {
        pending = !(await this.settleOne(move)) || pending;
      } catch (error) {
        pending = true;
        this.deps.logger.warn("an unfinished session move could not be settled yet", { moveId: move.id, error: (error as Error).message });
      }
    }
    if (pending) this.retryLater();
  }

  /** Settles one move; false when it must wait for the other machine. */
  private async settleOne(move: StoredMove): Promise<boolean> {
    if (move.state === "copying") {
      // The server stopped before deciding: the session never left, and the target learns it was given up.
      this.abort(move, `the move to ${this.nameOf(move.peerMachineId)} was interrupted by a restart; the session stayed here`);
      await this.tellPeer(move, "abort");
      return true;
    }
    if (move.state === "committed") {
      await this.deps.release(move.sessionId);
      await this.confirm(move);
      return this.deps.moves.get(move.id)?.state === "done";
    }
    const decision = await this.deps.peers.call(move.peerMachineId, { method: "GET", path: `/v1/machines/peer/moves/${move.id}`, answer: MoveState });
    if (decision.state === "committed" || decision.state === "done") this.goLive(move);
    else if (decision.state === "aborted" || decision.state === "unknown") await this.drop(move);
    // Still copying there: the source decides, then tells this side.
    return decision.state !== "copying";
  }

  private retryLater(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = this.deps.clock.setTimeout(() => {
      this.retryTimer = null;
      void this.settle();
    }, this.deps.retryMs);
  }

  private nameOf(machineId: string): string {
    try {
      return this.deps.peers.peerName(machineId);
    } catch {
      return machineId;
    }
  }

  /** Test-only: waits forever at the named step, after saying so in the log (a test kills the server there). */
  private async step(name: string): Promise<void> {
    if (this.deps.stopAt !== name) return;
    this.deps.logger.warn("session move stopped at a test step", { step: name });
    await new Promise(() => undefined);
  }
}

/** Why the target refused the copy, as this server's answer: its 409 (no location) stays a 409; anything else is a 502. */
function moveRefusal(error: unknown): Error {
  if (!(error instanceof PeerCallError)) return error as Error;
  if (error.status === 409) return new ConflictError(error.message);
  return new UpstreamError(error.message);
}
