import { useState } from "preact/hooks";
import type { Schedule } from "../../../schemas/schedules.ts";
import { api } from "../shared/api.ts";
import { SelectField, TextField } from "../shared/fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import { type ListSource, useLiveList } from "../shared/use-live-list.ts";

type Missed = Schedule["missed"];
type When = "at" | "cron";

const MISSED_CHOICES: { value: Missed; label: string }[] = [
  { value: "run-once", label: "Run once when the server is back" },
  { value: "skip", label: "Skip it" },
];
const WHEN_CHOICES: { value: When; label: string }[] = [
  { value: "at", label: "Once, at a time" },
  { value: "cron", label: "Repeating (cron)" },
];

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
const shownTime = (at: string | null) => (at ? new Date(at).toLocaleString() : "—");
/** A datetime-local field's value for an instant, on this browser's clock. */
const localInput = (at: string) => {
  const date = new Date(at);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

function scheduleSource(sessionId: string): ListSource<Schedule> {
  return {
    kinds: ["session.schedule.*"],
    firstPage: () => `/v1/sessions/${encodeURIComponent(sessionId)}/schedules?limit=200`,
    apply(event, { keep, forget }) {
      if (event.kind === "session.schedule.deleted") return forget((event.payload as { scheduleId: string }).scheduleId);
      const { schedule } = event.payload as { schedule: Schedule };
      if (schedule.sessionId === sessionId) keep(schedule);
    },
    compare: (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
    idsNeverReused: true,
  };
}

interface Draft {
  text: string;
  when: When;
  at: string;
  cron: string;
  timezone: string;
  missed: Missed;
}

const emptyDraft = (): Draft => ({ text: "", when: "at", at: "", cron: "", timezone: browserZone(), missed: "run-once" });
const draftOf = (schedule: Schedule): Draft => ({
  text: schedule.text,
  when: schedule.cron ? "cron" : "at",
  at: schedule.at ? localInput(schedule.at) : "",
  cron: schedule.cron ?? "",
  timezone: schedule.timezone,
  missed: schedule.missed,
});

/**
 * A form for a schedule: a new one, or (`replacing`) another in place of one, as the server has no
 * change of a schedule: saving creates the new one, then deletes the old.
 */
function ScheduleForm({ sessionId, replacing, done }: { sessionId: string; replacing?: Schedule; done: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => (replacing ? draftOf(replacing) : emptyDraft()));
  const action = useAction();
  const set =
    <K extends keyof Draft>(key: K) =>
    (value: Draft[K]) =>
      setDraft((current) => ({ ...current, [key]: value }));
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}/schedules`;
  const save = async (event: Event) => {
    event.preventDefault();
    const timing = draft.when === "at" ? { at: new Date(draft.at).toISOString() } : { cron: draft.cron.trim(), timezone: draft.timezone };
    const saved = await action.run(async () => {
      await api("POST", path, { text: draft.text, missed: draft.missed, ...timing });
      if (replacing) await api("DELETE", `${path}/${encodeURIComponent(replacing.id)}`);
    });
    if (saved) {
      setDraft(emptyDraft());
      done();
    }
  };
  const ready = draft.text.trim() && (draft.when === "at" ? draft.at : draft.cron.trim());
  return (
    <form class="schedule-form" aria-label={replacing ? "Change the schedule" : "New schedule"} onSubmit={save}>
      <label>
        Prompt to send
        <textarea rows={2} value={draft.text} onInput={(event) => set("text")(event.currentTarget.value)} />
      </label>
      <SelectField label="When" value={draft.when} choices={WHEN_CHOICES} onValue={set("when")} />
      {draft.when === "at" ? (
        <label>
          At (your time, {browserZone()})
          <input type="datetime-local" value={draft.at} onInput={(event) => set("at")(event.currentTarget.value)} />
        </label>
      ) : (
        <>
          <TextField label="Cron (minute hour day month weekday, or @daily)" value={draft.cron} placeholder="0 9 * * mon-fri" onValue={set("cron")} />
          <TextField label="Time zone" value={draft.timezone} onValue={set("timezone")} />
        </>
      )}
      <SelectField label="A run missed while the server was down" value={draft.missed} choices={MISSED_CHOICES} onValue={set("missed")} />
      <div class="row-actions">
        <button type="submit" class="small" disabled={action.busy || !ready}>
          {replacing ? "Save (replaces it)" : "Schedule"}
        </button>
        {replacing && (
          <button type="button" class="quiet-button small" onClick={done}>
            Keep as it was
          </button>
        )}
      </div>
      <Alert error={action.error} />
    </form>
  );
}

function ScheduleRow({ schedule }: { schedule: Schedule }) {
  const [editing, setEditing] = useState(false);
  const action = useAction();
  if (editing) return <ScheduleForm sessionId={schedule.sessionId} replacing={schedule} done={() => setEditing(false)} />;
  const remove = () => action.run(() => api("DELETE", `/v1/sessions/${encodeURIComponent(schedule.sessionId)}/schedules/${encodeURIComponent(schedule.id)}`));
  return (
    <>
      <span class="schedule-text">{schedule.text}</span>
      <span class="quiet">
        {schedule.cron ? `Cron ${schedule.cron} (${schedule.timezone})` : `Once at ${shownTime(schedule.at)}`} · missed runs:{" "}
        {schedule.missed === "skip" ? "skipped" : "run once"}
      </span>
      <span class="quiet">
        Next run: {shownTime(schedule.nextRunAt)} · last run: {shownTime(schedule.lastRunAt)}
      </span>
      <span class="row-actions">
        <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => setEditing(true)}>
          Edit
        </button>
        <button type="button" class="quiet-button small" disabled={action.busy} onClick={remove}>
          Delete
        </button>
      </span>
      <Alert error={action.error} />
    </>
  );
}

/** The session's scheduled prompts, live (`session.schedule.*`): listed with their next and last runs, created, changed, deleted. */
export function SchedulesPanel({ sessionId }: { sessionId: string }) {
  const [source] = useState(() => scheduleSource(sessionId));
  const schedules = useLiveList(source);
  return (
    <section class="panel" aria-label="Schedules">
      <h3>Schedules</h3>
      <Alert error={schedules.error} />
      {schedules.items?.length === 0 && <p class="quiet">No scheduled prompts.</p>}
      <ul class="schedules" aria-label="Scheduled prompts">
        {schedules.items?.map((schedule) => (
          <li key={schedule.id} data-schedule={schedule.id}>
            <ScheduleRow schedule={schedule} />
          </li>
        ))}
      </ul>
      <ScheduleForm sessionId={sessionId} done={() => undefined} />
    </section>
  );
}
